/**
 * The sandbox's notion of "now": real time plus an offset that tests move, so token expiry
 * (24 h) and hold expiry (15 min) happen in milliseconds of real time.
 */
export class Clock {
	private offsetMs = 0;
	private readonly listeners: Array<() => void> = [];

	constructor(start?: number) {
		if (start !== undefined) this.offsetMs = start - Date.now();
	}

	now(): number {
		return Date.now() + this.offsetMs;
	}

	advance(ms: number): number {
		this.offsetMs += ms;
		this.listeners.forEach((listener) => listener());
		return this.now();
	}

	set(at: number): number {
		return this.advance(at - this.now());
	}

	onMove(listener: () => void): void {
		this.listeners.push(listener);
	}
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** API Platform style timestamp: 2026-12-05T19:00:00+00:00 */
export function isoTime(ms: number): string {
	return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
