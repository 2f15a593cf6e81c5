import type { IDataObject } from 'n8n-workflow';

import { credentialFor, probeLogged, type LogEntry } from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';

/** The page window over real HTTP: its ceiling, and a 429's Retry-After holding every page. */
let sb: SandboxClient;
let visible: string[];

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 1990, placesPerEvent: 1 });
	visible = (await sb.getAll('/event-points')).map((e) => String(e.id));
	await sb.admin('PUT', '/config', { envelope: 'hydra' });
});
afterAll(() => sb.stop());
afterEach(() => sb.admin('DELETE', '/faults'));

async function probe(parameters: IDataObject) {
	const { store } = credentialFor(sb);
	const result = await probeLogged(sb, store, parameters);
	return { ...result, log: result.log.filter((e) => e.route === '/event-points') };
}

const page = (e: LogEntry) => Number(new URLSearchParams(e.query).get('page'));

it(
	'Pages Read at Once (maxPagesInFlight) 4: never more than 4 ' +
		'pages out, every item once, in order',
	async () => {
		const DELAY = 250;
		await sb.admin('POST', '/faults', {
			kind: 'latency',
			delayMs: DELAY,
			path: '/event-points',
			count: 0,
		});
		const { items, error, log } = await probe({
			path: '/event-points',
			allPages: true,
			maxPagesInFlight: 4,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => String(item.json.id))).toEqual(visible);
		expect(log.map(page).sort((a, b) => a - b)).toEqual(
			Array.from({ length: 20 }, (_, i) => i + 1),
		);
		const at = log.map((e) => e.at).sort((a, b) => a - b);
		const atOnce = Math.max(
			...at.map((start, i) => at.slice(i).filter((t) => t - start < DELAY * 0.8).length),
		);
		expect(atOnce).toBeLessThanOrEqual(4);
		expect(atOnce).toBeGreaterThan(1);
	},
);

it(
	'a 429 with Retry-After 1 in a wide window: no page goes out ' +
		'until it has passed; every item once, in order',
	async () => {
		await sb.admin('POST', '/faults', {
			kind: 'status',
			status: 429,
			retryAfter: 1,
			path: '/event-points',
			query: { page: '9' },
		});
		const { items, error, log } = await probe({ path: '/event-points', allPages: true });
		expect(error).toBeUndefined();
		expect(items.map((item) => String(item.json.id))).toEqual(visible);
		const refused = log.find((e) => e.status === 429)!;
		expect(page(refused)).toBe(9);
		// Page 9 is asked again only once its Retry-After has run (a lower bound: load cannot make it
		// early).
		const retried = log.find((e) => page(e) === 9 && e.status === 200)!;
		expect(retried.at - refused.at).toBeGreaterThanOrEqual(950);
		// Meanwhile only pages already out when the 429 came may arrive (on a busy machine, late): the
		// ones after 9 within the window, never a page beyond it.
		const during = log.filter((e) => e.at > refused.at && e.at < retried.at);
		expect(during.every((e) => page(e) > 9 && page(e) < 9 + 8)).toBe(true);
		expect(
			log
				.filter((e) => e.status === 200)
				.map(page)
				.sort((a, b) => a - b),
		).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
	},
);
