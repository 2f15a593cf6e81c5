/**
 * The trigger's state across a rename. n8n keeps a node's static data under `node:<name>`, and
 * neither a rename in the editor nor publishing again moves it: the renamed trigger found no state
 * of its own and took what the service listed then for history, so the sales made since the old
 * version's last poll were never emitted (found by an outside review). The state is mirrored in
 * the workflow's global static data by node id, written with it.
 */
import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession, type PollCall, type PollResult } from '../../../harness/engine';
import { credentialFor, pollItemId } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { DAY, MINUTE, SECOND } from '../../../harness/time';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 3, placesPerEvent: 300, widgetOrders: 0 });
	await sb.token();
});
afterAll(() => sb.stop());

const MIRRORS = 'publicEventsPollSeeds';
const call = (name: string): PollCall => ({
	nodeType: new PublicEventsPollTrigger(),
	type: 'CUSTOM.publicEventsPollTrigger',
	name,
	parameters: { include: ['widgetSales', 'widgetRefunds'] },
	credentials: credentialFor(sb).store,
});
const sell = async () =>
	String((await sb.admin('POST', '/widget-orders', { tickets: 1 })).body.id as number);
const ids = (result: PollResult) => {
	expect(result.error).toBeUndefined();
	return result.items.map((item) => String(pollItemId(item.json)));
};
const globalOf = (node: PollSession) =>
	(JSON.parse(node.staticData!) as { global?: IDataObject }).global ?? {};

describe('Poll Trigger: a rename in the editor', () => {
	it.each([
		['published again under the same name', 'New Sales and Refunds'],
		['renamed and published', 'Widget Sales'],
		['renamed twice', 'Widget Sales 2'],
	])(
		'invariant: every sale made while the workflow is published reaches a run once, %s',
		async (_, newName) => {
			const node = new PollSession(call('New Sales and Refunds'));
			expect((await node.poll()).error).toBeUndefined();
			const sold: string[] = [];
			const emitted: string[] = [];
			for (let i = 0; i < 3; i++) {
				sold.push(await sell());
				await sb.advanceClock(MINUTE);
				emitted.push(...ids(await node.poll()));
			}
			const renames = newName === 'Widget Sales 2' ? ['Widget Sales', newName] : [newName];
			for (const name of renames) {
				// A sale in the seconds between the old version's last poll and the new one's first.
				sold.push(await sell());
				await sb.advanceClock(20 * SECOND);
				node.rename(name);
				for (let i = 0; i < 3; i++) {
					emitted.push(...ids(await node.poll()));
					sold.push(await sell());
					await sb.advanceClock(MINUTE);
				}
			}
			emitted.push(...ids(await node.poll()));
			expect(emitted).toEqual(sold);
		},
	);

	it(
		'the mirror holds the state by node id; ' + 'a trigger gone for 30 days leaves no copy',
		async () => {
			const node = new PollSession(call('New Sales and Refunds'));
			await node.poll();
			const data = JSON.parse(node.staticData!) as IDataObject;
			const gone = { version: 1, startFromKey: '', feeds: {}, mirroredAt: Date.now() - 31 * DAY };
			const older = { version: 1, startFromKey: '', feeds: {} };
			(data.global as IDataObject)[MIRRORS] = {
				...((data.global as IDataObject)[MIRRORS] as IDataObject),
				'deleted-trigger': gone,
				// A first state kept by an older version (no date): its trigger may still need it.
				'first-state-of-another': older,
			};
			node.staticData = JSON.stringify(data);
			await sell();
			await sb.advanceClock(MINUTE);
			expect(ids(await node.poll())).toHaveLength(1);

			const mirrors = globalOf(node)[MIRRORS] as IDataObject;
			expect(Object.keys(mirrors).sort()).toEqual(['first-state-of-another', 'node-under-test']);
			const { mirroredAt, ...mirror } = mirrors['node-under-test'] as IDataObject;
			expect(mirroredAt).toEqual(expect.any(Number));
			expect(mirror).toEqual(node.nodeData('New Sales and Refunds')?.publicEventsPoll);
			// Static data holds the state twice: measured on a window of 200 sales.
			for (let i = 0; i < 200; i++) await sell();
			await sb.advanceClock(MINUTE);
			expect(ids(await node.poll())).toHaveLength(200);
			const bytes = (value: unknown) => JSON.stringify(value).length;
			const own = bytes(node.nodeData('New Sales and Refunds'));
			console.log(`static data: ${bytes(JSON.parse(node.staticData!))} bytes, the state ${own}`);
			expect(bytes(globalOf(node)[MIRRORS])).toBeLessThan(own + 200);
		},
	);
});
