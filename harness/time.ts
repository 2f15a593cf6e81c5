/** Durations in milliseconds, for tests and benchmarks (the sandbox clock counts in ms too). */
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
