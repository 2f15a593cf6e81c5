import { request } from 'undici';

import { SandboxClient } from '../../harness/sandbox/client';
import { onlyEvents } from '../../harness/sandbox/suite';

const EVENT = 1001;

/** POST /orders with undici: the answer, or the socket error when the answer was lost. */
async function rawPost(sb: SandboxClient, body: unknown) {
	try {
		const res = await request(`${sb.sandbox.baseUrl}/api/v2/orders`, {
			method: 'POST',
			headers: { authorization: `Bearer ${await sb.token()}`, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		return { status: res.statusCode, text: await res.body.text() };
	} catch (error) {
		return { error: error as Error };
	}
}

describe('sandbox quirks a read-back must understand', () => {
	let sb: SandboxClient;
	beforeAll(async () => {
		sb = await SandboxClient.start(onlyEvents(2, 40));
	});
	afterEach(() => sb.setQuirks({}));
	afterAll(() => sb.stop());

	const holdBody = async (count: number) => {
		const free = await sb.freePlaces(EVENT, count);
		return { eventPoint: String(EVENT), places: free.ids, priceCategory: free.priceCategory };
	};
	const live = async () =>
		(
			await sb.getAll(`/event-points/${EVENT}/orders`, { query: { status: 'reserved_to_time' } })
		).map((o) => o.id as number);

	it('the string form reads and prints back', async () => {
		const { quirks, text } = await sb.setQuirks(
			'ticket-place-ids=iri,order-list-lag=1500ms,empty-write-answers,lose-write-answers=0.25,' +
				'lose-write-answers-seed=7',
		);
		expect(quirks).toEqual({
			ticketPlaceIds: 'iri',
			orderListLagMs: 1500,
			emptyWriteAnswers: true,
			loseWriteAnswersRate: 0.25,
			loseWriteAnswersSeed: 7,
		});
		expect(text).toBe(
			'ticket-place-ids=iri,order-list-lag=1500ms,empty-write-answers,lose-write-answers=0.25,' +
				'lose-write-answers-seed=7',
		);
		const bad = await sb.admin('PUT', '/quirks', 'lose-write-answers=2');
		expect(bad.status).toBe(400);
		expect(bad.body.message).toMatch(/lose-write-answers.*0 to 1/);
	});

	it.each([
		['iri', (id: number) => `/api/v2/places/${id}`],
		['string', (id: number) => String(id)],
	])('ticket-place-ids=%s: tickets name their place that way', async (form, expected) => {
		const body = await holdBody(2);
		const created = await sb.send('POST', '/orders', body);
		await sb.setQuirks({ ticketPlaceIds: form } as never);
		const order = (await sb.get(`/orders/${created.body.id}`)).body;
		expect(order.tickets.map((t: { placeId: unknown }) => t.placeId)).toEqual(
			body.places.map((id) => expected(Number(id))),
		);
		await sb.setQuirks({});
		await sb.send('PUT', `/orders/${created.body.id}/status`, { toStatus: 'expired' });
	});

	it('order-list-lag: a new order is listed once the clock moved past the lag', async () => {
		await sb.setQuirks({ orderListLagMs: 60_000 });
		const created = await sb.send('POST', '/orders', await holdBody(1));
		expect(created.status).toBe(201);
		expect(await live()).not.toContain(created.body.id);
		// The order itself is there at once.
		expect((await sb.get(`/orders/${created.body.id}`)).status).toBe(200);
		await sb.advanceClock(60_000);
		expect(await live()).toContain(created.body.id);
		await sb.send('PUT', `/orders/${created.body.id}/status`, { toStatus: 'expired' });
	});

	it('empty-write-answers: a write that succeeds answers 204, applied', async () => {
		await sb.setQuirks({ emptyWriteAnswers: true });
		const before = await live();
		const answer = await rawPost(sb, await holdBody(1));
		expect(answer).toEqual({ status: 204, text: '' });
		const made = (await live()).filter((id) => !before.includes(id));
		expect(made).toHaveLength(1);
		await sb.setQuirks({});
		await sb.send('PUT', `/orders/${made[0]}/status`, { toStatus: 'expired' });
	});

	it('lose-write-answers=1: a 201 and a 409 alike are lost once the service acted', async () => {
		const body = await holdBody(2);
		await sb.setQuirks({ loseWriteAnswersRate: 1 });
		const before = await live();
		expect((await rawPost(sb, body)).error).toBeDefined();
		const made = (await live()).filter((id) => !before.includes(id));
		expect(made).toHaveLength(1);
		// The same places again: refused (409) by the service, the refusal lost too.
		expect((await rawPost(sb, body)).error).toBeDefined();
		expect((await live()).filter((id) => !before.includes(id))).toEqual(made);
		const log = (await sb.admin('GET', '/requests')).body.entries.filter(
			(e: { method: string; route: string }) => e.method === 'POST' && e.route === '/orders',
		);
		expect(log.slice(-2).map((e: { fault?: string }) => e.fault)).toEqual([
			'lose-answer',
			'lose-answer',
		]);
		await sb.setQuirks({});
		await sb.send('PUT', `/orders/${made[0]}/status`, { toStatus: 'expired' });
	});

	it('lose-write-answers draws from its seed: the same seed loses the same answers', async () => {
		const fates = async () => {
			await sb.setQuirks({ loseWriteAnswersRate: 0.5, loseWriteAnswersSeed: 42 });
			const lost: boolean[] = [];
			for (let n = 0; n < 8; n++)
				lost.push(
					(await rawPost(sb, { eventPoint: String(EVENT), places: [] })).error !== undefined,
				);
			return lost;
		};
		const first = await fates();
		expect(first).toContain(true);
		expect(first).toContain(false);
		expect(await fates()).toEqual(first);
	});
});
