import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession, type PollResult } from '../../../harness/engine';
import { credentialFor, mark, pollItemId, since } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { DAY } from '../../../harness/time';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 8, placesPerEvent: 20 });
	await sb.token();
});
afterAll(() => sb.stop());

function catalogTrigger(parameters: IDataObject = {}, store = credentialFor(sb).store) {
	return new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters: { source: 'catalog', ...parameters },
		credentials: store,
	});
}

/** What a poll emitted: `type:id[changedFields]`. */
const changes = (result: PollResult) => {
	expect(result.error).toBeUndefined();
	return result.items
		.map(
			(item) =>
				`${String(item.json.type)}:${pollItemId(item.json)}` +
				`${item.json.changedFields ? `[${(item.json.changedFields as string[]).join(',')}]` : ''}`,
		)
		.sort();
};
const createEvent = async (name: string) =>
	(await sb.admin('POST', '/events', { name, places: 10 })).body;
const patch = (id: number, body: IDataObject) => sb.admin('PATCH', `/events/${id}`, body);
const iso = (ms: number) => new Date(ms).toISOString();
const now = async () => (await sb.admin('GET', '/state')).body.now as string;

describe('Poll Trigger: Catalog Changes', () => {
	it(
		'first activation records the catalog; then each new event ' +
			'and each change once, with the fields that changed',
		async () => {
			const node = catalogTrigger();
			const first = await node.poll();
			expect(first.returnedNull).toBe(true);
			const state = node.nodeData()!.publicEventsPoll as {
				catalog: { fields: string[]; events: Record<string, string> };
			};
			expect(Object.keys(state.catalog.events)).toHaveLength(
				(await sb.getAll('/event-points')).length,
			);
			expect(state.catalog.fields).not.toContain('countAvailableTickets');

			const created = await createEvent('Spring Gala');
			const [target, other] = await sb.getAll('/event-points');
			await patch(target.id, { name: 'Renamed Night' });
			await patch(other.id, {
				dateStarted: iso(Date.parse(other.dateStarted) + DAY),
				description: 'Moved by a day',
			});

			const second = await node.poll();
			expect(changes(second)).toEqual(
				[
					`eventUpdated:${target.id}[eventName]`,
					`eventUpdated:${other.id}[dateStarted,description]`,
					`newEvent:${created.id}`,
				].sort(),
			);
			const newItem = second.items.find((item) => item.json.type === 'newEvent')!.json;
			expect(newItem).toMatchObject({
				source: 'catalog',
				eventPointId: String(created.id),
				eventName: 'Spring Gala',
				minPrice: created.minPrice,
			});
			const renamed = second.items.find(
				(item) => item.json.eventPointId === String(target.id),
			)!.json;
			expect(renamed).toMatchObject({
				type: 'eventUpdated',
				eventName: 'Renamed Night',
				changedFields: ['eventName'],
			});
			// Named by the event and a digest of its editable fields: each real edit its own key.
			expect(newItem.dedupeKey).toBe(`newEvent:${created.id}`);
			const updateKeys = second.items
				.filter((item) => item.json.type === 'eventUpdated')
				.map((item) => String(item.json.dedupeKey));
			expect(updateKeys).toEqual([
				expect.stringMatching(new RegExp(`^eventUpdated:${target.id}:[\\w-]{16}$`)),
				expect.stringMatching(new RegExp(`^eventUpdated:${other.id}:[\\w-]{16}$`)),
			]);

			expect((await node.poll()).returnedNull).toBe(true); // each change once
		},
	);

	it('availability changes are ignored by default, and reported when not ignored', async () => {
		const quiet = catalogTrigger();
		const loud = catalogTrigger({ fieldsToIgnore: '' });
		await quiet.poll();
		await loud.poll();
		const sale = (await sb.admin('POST', '/widget-orders', { tickets: 2 })).body;

		expect((await quiet.poll()).returnedNull).toBe(true);
		const first = await loud.poll();
		expect(changes(first)).toEqual([`eventUpdated:${sale.eventPoint}[countAvailableTickets]`]);
		// Availability moves with every sale: it is no part of an update's dedupeKey, so a second
		// sale's item has the first one's key (a destination keyed by it keeps the first).
		await sb.admin('POST', '/widget-orders', { eventPoint: sale.eventPoint });
		const second = await loud.poll();
		expect(changes(second)).toEqual([`eventUpdated:${sale.eventPoint}[countAvailableTickets]`]);
		expect(second.items[0].json.dedupeKey).toBe(first.items[0].json.dedupeKey);
	});

	it(
		'an event whose sale ended leaves silently; back on sale ' +
			'within a week it is an update, not a new event',
		async () => {
			const node = catalogTrigger();
			await node.poll();
			const [event] = await sb.getAll('/event-points');
			const clock = Date.parse(await now());
			await patch(event.id, { dateEndOfSale: iso(clock - 60_000) });
			expect((await node.poll()).returnedNull).toBe(true);
			expect((await sb.getAll('/event-points')).map((e) => e.id)).not.toContain(event.id);

			await patch(event.id, { dateEndOfSale: iso(clock + 10 * DAY) });
			expect(changes(await node.poll())).toEqual([`eventUpdated:${event.id}[dateEndOfSale]`]);
			expect((await node.poll()).returnedNull).toBe(true);
		},
	);

	it(
		'thirty rounds of random changes, state reloaded between ' + 'polls: every change emitted once',
		async () => {
			let seed = 99;
			const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
			const node = catalogTrigger();
			await node.poll();
			let emitted = 0;
			let made = 0;
			for (let round = 0; round < 30; round++) {
				const events = await sb.getAll('/event-points');
				const expected: string[] = [];
				if (random() < 0.3) {
					const created = await createEvent(`Round ${round}`);
					expected.push(`newEvent:${created.id}`);
				}
				const chosen = new Set<number>();
				for (let i = 0; i < 3; i++) chosen.add(events[Math.floor(random() * events.length)].id);
				for (const id of chosen) {
					if (random() < 0.5) {
						await patch(id, { name: `Name ${round}-${id}` });
						expected.push(`eventUpdated:${id}[eventName]`);
					} else {
						await patch(id, { description: `Description ${round}-${id}` });
						expected.push(`eventUpdated:${id}[description]`);
					}
				}
				await sb.admin('POST', '/widget-orders', {}); // availability only: ignored
				const got = changes(await node.poll());
				expect(got).toEqual(expected.sort());
				emitted += got.length;
				made += expected.length;
			}
			expect(emitted).toBe(made);
			expect(made).toBeGreaterThan(60);
		},
	);

	it(
		'a quiet poll costs one list request and no token request; ' +
			'manual mode gives a sample and keeps the state',
		async () => {
			const { store } = credentialFor(sb);
			const node = catalogTrigger({}, store);
			await node.poll();
			const saved = node.staticData;
			const before = await mark(sb);

			const quiet = await node.poll();

			expect(quiet.returnedNull).toBe(true);
			expect(quiet.changed).toBe(false);
			expect((await since(sb, before)).map((e) => `${e.method} ${e.route}`)).toEqual([
				'GET /event-points',
			]);
			expect(store.preAuthenticationCount).toBe(1);

			const created = await createEvent('Sample me');
			const manual = await node.poll({ mode: 'manual' });
			expect(changes(manual)).toEqual([`newEvent:${created.id}`]);
			expect(node.staticData).toBe(saved);
			expect(changes(await node.poll())).toEqual([`newEvent:${created.id}`]);
		},
	);
});
