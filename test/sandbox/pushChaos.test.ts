import { deliveriesOf, quiet, subscribe } from '../../harness/sandbox/push';
import { Receiver } from '../../harness/net/receiver';
import { SandboxClient } from '../../harness/sandbox/client';

/**
 * Push chaos: the sandbox as a sender that drops, duplicates and reorders deliveries, seeded, so a
 * receiver can be tested against an imperfect sender on the sandbox clock (no waiting).
 */
const CHAOS = { drop: 0.2, duplicate: 0.25, reorder: 0.3, holdMs: 4000, seed: 42 };
const SALES = 40;

describe('sandbox push chaos: dropped, duplicated and reordered deliveries, seeded', () => {
	let sb: SandboxClient;
	let rx: Receiver;

	beforeAll(async () => {
		sb = await SandboxClient.start({ events: 6, placesPerEvent: 120 });
	});
	beforeEach(async () => {
		rx = await Receiver.start();
	});
	afterEach(async () => {
		await sb.admin('DELETE', '/webhooks');
		await sb.admin('DELETE', '/push/chaos');
		await rx.close();
	});
	afterAll(() => sb.stop());

	/** Sells `SALES` widget orders; every delivery of the run, and the ids of the notifications. */
	async function run(chaos: object) {
		expect((await sb.admin('PUT', '/push/chaos', chaos)).status).toBe(200);
		const sub = await subscribe(sb, { url: rx.url });
		const notified: string[] = [];
		for (let i = 0; i < SALES; i++) {
			expect((await sb.admin('POST', '/widget-orders', {})).status).toBe(201);
			const all = await deliveriesOf(sb, sub.id);
			notified.push(all.filter((d) => !d.chaos?.copyOf).at(-1).notificationId);
		}
		return { sub, notified };
	}

	it(
		'each notification is dropped, sent once or sent twice, as drawn; a held delivery waits on ' +
			'the sandbox clock and is overtaken by later ones',
		async () => {
			const { sub, notified } = await run(CHAOS);
			await quiet(sb);
			const deliveries = await deliveriesOf(sb, sub.id);
			const dropped = deliveries.filter((d) => d.state === 'dropped');
			const copies = deliveries.filter((d) => d.chaos?.copyOf);
			const held = deliveries.filter((d) => d.chaos?.heldMs && d.state === 'pending');
			// Nothing held has been sent yet: the clock has not moved.
			expect(held.every((d) => d.attempts.length === 0)).toBe(true);
			const arrivedEarly = rx.bodies().length;
			expect(arrivedEarly).toBe(deliveries.length - dropped.length - held.length);

			await sb.advanceClock(CHAOS.holdMs);
			await quiet(sb);
			const sent = deliveries.length - dropped.length;
			await rx.waitFor(sent);
			const arrived = rx.bodies().map((b: { id: string }) => b.id);
			// Every notification arrives as often as its fate says: 0, 1 or 2 times.
			const times = (id: string) => arrived.filter((a) => a === id).length;
			const fate = (id: string) =>
				deliveries.filter((d) => d.notificationId === id && d.state !== 'dropped').length;
			expect(notified.map(times)).toEqual(notified.map(fate));
			// A copy carries its original's id and body; a dropped one was never attempted.
			for (const copy of copies) {
				const original = deliveries.find((d) => d.id === copy.chaos.copyOf);
				expect([copy.notificationId, copy.payload]).toEqual([
					original.notificationId,
					original.payload,
				]);
			}
			expect(dropped.every((d) => d.attempts.length === 0)).toBe(true);
			// Held ones came after notifications made later: the order is not the order of the sales.
			const firsts = arrived.filter((id, i) => arrived.indexOf(id) === i);
			const sentOnce = notified.filter((id) => firsts.includes(id));
			expect(firsts).not.toEqual(sentOnce);
			expect(firsts.sort()).toEqual([...sentOnce].sort());
			// Each kind of fate happened at these shares and this seed.
			expect([dropped.length, copies.length, held.length].every((n) => n > 0)).toBe(true);
			console.log(
				`[push chaos] ${SALES} notifications: ${dropped.length} dropped, ${copies.length} ` +
					`copies, ${held.length} held (seed ${CHAOS.seed})`,
			);
		},
	);

	it('one seed draws the same fates; chaos off sends each delivery once, at once', async () => {
		const fates = async (chaos: object) => {
			const { sub } = await run(chaos);
			const all = await deliveriesOf(sb, sub.id);
			await sb.admin('DELETE', '/webhooks');
			await sb.advanceClock(CHAOS.holdMs);
			await quiet(sb);
			return all.map(
				(d) =>
					`${d.state === 'dropped' ? 'dropped' : 'sent'}:` +
					`${d.chaos?.copyOf ? 'copy' : ''}:${d.chaos?.heldMs ?? 0}`,
			);
		};
		const first = await fates(CHAOS);
		expect(await fates(CHAOS)).toEqual(first);
		expect(await fates({ ...CHAOS, seed: 43 })).not.toEqual(first);
		expect(await fates({})).toEqual(Array(SALES).fill('sent::0'));
	});

	it('bad chaos settings are refused, naming the field; GET shows what is set', async () => {
		for (const [body, field] of [
			[{ drop: 1.5 }, 'drop'],
			[{ holdMs: 0 }, 'holdMs'],
			[{ reorder: 'often' }, 'reorder'],
		] as const) {
			const res = await sb.admin('PUT', '/push/chaos', body);
			expect([res.status, res.body.message]).toEqual([400, expect.stringContaining(field)]);
		}
		expect((await sb.admin('PUT', '/push/chaos', { drop: 0.5 })).status).toBe(200);
		expect((await sb.admin('GET', '/push/chaos')).body).toEqual({
			drop: 0.5,
			duplicate: 0,
			reorder: 0,
			holdMs: 5000,
			seed: 1,
		});
	});
});
