/**
 * The service's clock set back. The window normally starts a Settlement Lag before the service's
 * time, so a step back within the lag loses nothing by itself; before, the window was read again
 * only when it lay more than the Overlap ahead of the service's time, so a step back between the
 * lag and the lag plus the overlap (15 to 20 minutes with the defaults) skipped every sale dated
 * before the service's clock caught up with the window (found by an outside review). A fall of the
 * service's clock against this machine's now starts the window at the latest the overlap before
 * the service's time, for any step.
 */
import type { IDataObject } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { PollSession, type PollResult } from '../../../harness/engine';
import { credentialFor } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { MINUTE } from '../../../harness/time';

let sb: SandboxClient;

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 3, placesPerEvent: 600, widgetOrders: 0 });
	await sb.token();
});
afterAll(() => sb.stop());

const OVERLAP = 5 * MINUTE;
const sell = async () =>
	(await sb.admin('POST', '/widget-orders', { tickets: 1 })).body as IDataObject;
const ids = (result: PollResult) => {
	expect(result.error).toBeUndefined();
	return result.items.map((item) => String(item.json.orderId));
};

/**
 * Twenty minutes of polls a minute apart (a sale every five), the clock set back, then sales a
 * minute apart for ten minutes and polls until every lag is over.
 */
async function stepBack(minutes: number) {
	const node = new PollSession({
		nodeType: new PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters: { include: ['widgetSales'] },
		credentials: credentialFor(sb).store,
	});
	expect(ids(await node.poll())).toEqual([]);
	const emitted: string[] = [];
	const before: IDataObject[] = [];
	for (let minute = 0; minute < 20; minute++) {
		if (minute % 5 === 0) before.push(await sell());
		await sb.advanceClock(MINUTE);
		emitted.push(...ids(await node.poll()));
	}
	const setBackAt = sb.app.clock.now();
	await sb.advanceClock(-minutes * MINUTE);
	const after: IDataObject[] = [];
	for (let minute = 0; minute < 10; minute++) {
		after.push(await sell());
		await sb.advanceClock(MINUTE);
		emitted.push(...ids(await node.poll()));
	}
	for (let i = 0; i < 6; i++) {
		await sb.advanceClock(5 * MINUTE);
		emitted.push(...ids(await node.poll()));
	}
	return { before, after, emitted, setBackAt };
}

describe('Poll Trigger: the service clock set back', () => {
	it.each([3, 14, 16, 18, 20, 25, 120])(
		'invariant: set back %i minutes, every sale is emitted; one comes twice only if made ' +
			'before the step and dated within the step and the overlap before it',
		async (minutes) => {
			const { before, after, emitted, setBackAt } = await stepBack(minutes);
			const listed = new Set((await sb.getAll('/widget-orders')).map((o) => String(o.id)));
			const sold = [...before, ...after].map((o) => String(o.id));
			expect(sold.filter((id) => !listed.has(id))).toEqual([]);
			expect(sold.filter((id) => !emitted.includes(id))).toEqual([]);
			const twice = emitted.filter((id, i) => emitted.indexOf(id) !== i);
			const mayRepeat = before
				.filter((o) => Date.parse(String(o.payAt)) >= setBackAt - minutes * MINUTE - OVERLAP)
				.map((o) => String(o.id));
			expect(twice.filter((id) => !mayRepeat.includes(id))).toEqual([]);
			// Within the Settlement Lag (15 minutes) a step needs no reading again.
			if (minutes < 15) expect(twice).toEqual([]);
			console.log(`set back ${minutes} min: ${sold.length} sold, ${twice.length} emitted twice`);
		},
	);
});
