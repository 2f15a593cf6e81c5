import { backoffMs, retryAfterMs, retryPolicyFrom } from '../../../../nodes/shared/transport/retry';

describe('Retry-After', () => {
	const now = Date.parse('2026-11-22T10:00:00Z');

	it('reads delta-seconds', () => {
		expect(retryAfterMs('3', now)).toBe(3000);
		expect(retryAfterMs(['2'], now)).toBe(2000);
		expect(retryAfterMs('0', now)).toBe(0);
	});

	it('reads an HTTP date, rounding up to whole seconds', () => {
		expect(retryAfterMs('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5000);
		expect(retryAfterMs('Sun, 22 Nov 2026 10:00:05 GMT', now + 200)).toBe(5000);
		expect(retryAfterMs('Sun, 22 Nov 2026 09:59:00 GMT', now)).toBe(0);
	});

	it('ignores what it cannot read', () => {
		expect(retryAfterMs(undefined, now)).toBeUndefined();
		expect(retryAfterMs('soon', now)).toBeUndefined();
	});
});

describe('backoff', () => {
	it('doubles per attempt with jitter between half and all of the step', () => {
		expect(backoffMs(0, () => 0)).toBe(250);
		expect(backoffMs(0, () => 1)).toBe(500);
		expect(backoffMs(3, () => 0)).toBe(2000);
		expect(backoffMs(3, () => 1)).toBe(4000);
	});

	it('is capped', () => {
		expect(backoffMs(30, () => 1)).toBe(30_000);
	});
});

describe('retry policy from node options', () => {
	it('uses defaults and converts seconds', () => {
		expect(retryPolicyFrom({})).toEqual({ maxRetries: 5, maxWaitMs: 60_000 });
		expect(retryPolicyFrom({ maxRetries: 2, maxRetryWait: 1.5 })).toEqual({
			maxRetries: 2,
			maxWaitMs: 1500,
		});
	});

	it('falls back on nonsense', () => {
		expect(retryPolicyFrom({ maxRetries: -1, maxRetryWait: 'x' })).toEqual({
			maxRetries: 5,
			maxWaitMs: 60_000,
		});
	});
});
