/**
 * The poll trigger under both of n8n 2.40's ways of keeping a poll's state: the default (static
 * data in the workflow, in memory between polls) and the opt-in durable cursors (a row of its own,
 * created at activation; what the activation poll writes to its node static data dropped). In
 * both, every sale made after publishing reaches the run exactly once, whatever the timing of
 * sales, polls and restarts, without Start From. harness/engine/poll.ts models each mode.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { DurablePollSession, PollSession, type PollCall } from '../../../harness/engine';
import { credentialFor, pollItemId } from '../../../harness/nodes/publicEvents';
import { checkProperty } from '../../../harness/props/property';
import { SandboxClient } from '../../../harness/sandbox/client';
import { MINUTE, SECOND } from '../../../harness/time';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 3, placesPerEvent: 400, widgetOrders: 3 });
	await sb.token();
});
afterAll(() => sb.stop());

const call = (
	parameters: IDataObject = { include: ['widgetSales', 'widgetRefunds'] },
): PollCall => ({
	nodeType: new PublicEventsPollTrigger(),
	type: 'CUSTOM.publicEventsPollTrigger',
	parameters,
	credentials: credentialFor(sb).store,
});

const sell = async () => (await sb.admin('POST', '/widget-orders', { tickets: 1 })).body;
const ids = (items: Array<{ json: IDataObject }>) =>
	items.map((item) => `${String(item.json.type)}:${pollItemId(item.json)}`);

type Step =
	| { kind: 'sale' }
	| { kind: 'poll' }
	| { kind: 'restart' }
	| { kind: 'wait'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
	{ weight: 4, arbitrary: fc.constant({ kind: 'sale' } as const) },
	{ weight: 3, arbitrary: fc.constant({ kind: 'poll' } as const) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'restart' } as const) },
	{
		weight: 2,
		arbitrary: fc
			.integer({ min: 1, max: 10 * 60 })
			.map((s) => ({ kind: 'wait', ms: s * SECOND }) as const),
	},
);

describe.each([
	['the default scheduling', (p?: IDataObject) => new PollSession(call(p))],
	['durable cursors', (p?: IDataObject) => new DurablePollSession(call(p))],
])('Poll Trigger under %s', (_, sessionOf) => {
	const session = () => sessionOf();
	it(
		'a sale made seconds after publishing, ' + 'before the first scheduled poll, comes once',
		async () => {
			const before = await sell();
			const node = session();
			expect((await node.poll()).returnedNull).toBe(true); // the poll at activation
			await sb.advanceClock(2 * SECOND);
			const sales = [await sell(), await sell()];
			await sb.advanceClock(MINUTE);
			const first = await node.poll();
			expect(first.error).toBeUndefined();
			expect(ids(first.items)).toEqual(sales.map((s) => `sale:${s.id}`));
			expect(ids(first.items)).not.toContain(`sale:${before.id}`);
			await sb.advanceClock(MINUTE);
			const third = await sell();
			const second = await node.poll();
			expect(ids(second.items)).toEqual([`sale:${third.id}`]);
		},
	);

	it(
		'Catalog Changes: an event opened and one ' +
			'changed before the first scheduled poll come once',
		async () => {
			const node = sessionOf({ source: 'catalog' });
			expect((await node.poll()).returnedNull).toBe(true);
			const created = (await sb.admin('POST', '/events', { name: 'Durable Gala', places: 10 }))
				.body;
			const [target] = (await sb.getAll('/event-points')).filter((e) => e.id !== created.id);
			await sb.admin('PATCH', `/events/${target.id}`, { name: `Renamed ${created.id}` });
			const first = await node.poll();
			expect(first.error).toBeUndefined();
			expect(
				first.items.map((i) => `${String(i.json.type)}:${String(i.json.eventPointId)}`).sort(),
			).toEqual([`eventUpdated:${target.id}`, `newEvent:${created.id}`].sort());
			expect((await node.poll()).returnedNull).toBe(true);
		},
	);

	it(
		'every sale made after publishing comes ' + 'exactly once, over generated timings and restarts',
		async () => {
			await checkProperty(
				'poll trigger: each sale after publishing once, any scheduling',
				fc.array(step, { minLength: 1, maxLength: 14 }),
				async (steps) => {
					await sell(); // history at publishing
					const node = session();
					expect((await node.poll()).error).toBeUndefined();
					const made: string[] = [];
					const emitted: string[] = [];
					for (const s of [
						...steps,
						{ kind: 'wait', ms: MINUTE } as Step,
						{ kind: 'poll' } as Step,
					]) {
						if (s.kind === 'sale') made.push(`sale:${(await sell()).id}`);
						else if (s.kind === 'wait') await sb.advanceClock(s.ms);
						else if (s.kind === 'restart') node.restart();
						else {
							const result = await node.poll();
							expect(result.error).toBeUndefined();
							emitted.push(...ids(result.items));
						}
					}
					expect(emitted).toEqual(made);
				},
				25,
			);
		},
	);
});
