/**
 * The webhook credential is read once per minute per trigger, and again when a delivery fails the
 * check (the secret may have been rotated): only a few times at once, then once per
 * REREAD_EVERY_MS, so forged deliveries (which all fail it) cannot make every post a credential
 * read. A secret rotated meanwhile is taken at the next read allowed. A read that fails is bounded
 * the same way (found by an outside review: a failed read was forgotten, so while reading failed
 * every delivery read the credential again).
 */
import { PublicEventsApi } from '../../../credentials/PublicEventsApi.credentials';
import { PublicEventsWebhookApi } from '../../../credentials/PublicEventsWebhookApi.credentials';
import { CredentialStore } from '../../../harness/engine';
import { post, SIGNED, TOKEN, triggerSuite } from '../../../harness/nodes/webhookTrigger';
import { SECRET, sign } from '../../../harness/sandbox/push';
import {
	REREAD_EVERY_MS,
	REREADS_AT_ONCE,
} from '../../../nodes/PublicEventsTrigger/webhook/secret';

const { triggers } = triggerSuite({ events: 1, placesPerEvent: 2 });

const WEBHOOK = 'publicEventsWebhookApi';
const sale = (id: string) => `{"id":"${id}","type":"order.sale","data":{"orderId":7}}`;

/** A trigger checking with a credential of its own (the kept secrets are per credential). */
async function triggerWith(id: string, parameters = SIGNED) {
	const store = new CredentialStore([new PublicEventsApi(), new PublicEventsWebhookApi()]);
	store.add(WEBHOOK, { secret: SECRET }, { id });
	const trigger = await triggers.start(parameters);
	trigger.configure({
		credentials: store,
		nodeCredentials: { [WEBHOOK]: { id, name: 'secret' } },
	});
	return { trigger, store, reads: () => store.reads[WEBHOOK] ?? 0 };
}

afterEach(() => jest.restoreAllMocks());

describe('forged deliveries do not make the trigger read its credential', () => {
	it.each([
		['Signature', SIGNED, (body: string) => ({ 'x-signature': sign('not-the-secret', body) })],
		['Header Token', TOKEN, () => ({ 'x-webhook-token': 'not-the-secret' })],
	])(
		'%s: 20 forged posts, one after another and 20 at once: 401 each, the credential read ' +
			`at most ${1 + REREADS_AT_ONCE} times in all`,
		async (security, parameters, forge) => {
			const { trigger, reads } = await triggerWith(`forged-${security}`, parameters);
			for (let n = 0; n < 20; n++) {
				const body = sale(`forged-${n}`);
				expect((await post(trigger.url, body, forge(body))).status).toBe(401);
			}
			const at = await Promise.all(
				Array.from({ length: 20 }, async (_, n) => {
					const body = sale(`forged-at-once-${n}`);
					return (await post(trigger.url, body, forge(body))).status;
				}),
			);
			expect(at).toEqual(at.map(() => 401));
			expect(trigger.executions).toEqual([]);
			expect(reads()).toBeLessThanOrEqual(1 + REREADS_AT_ONCE);
		},
	);

	it(
		'the secret rotated after a flood spent the re-reads: refused until the next re-read is ' +
			'allowed, then taken from its first delivery',
		async () => {
			const { trigger, store, reads } = await triggerWith('rotated');
			const now = Date.now();
			jest.spyOn(Date, 'now').mockReturnValue(now);
			for (let n = 0; n < 10; n++) {
				const body = sale(`flood-${n}`);
				const headers = { 'x-signature': sign('not-the-secret', body) };
				expect((await post(trigger.url, body, headers)).status).toBe(401);
			}
			const spent = reads();
			store.edit('rotated', { secret: 'whsec_rotated' });
			const body = sale('genuine-1');
			const signed = { 'x-signature': sign('whsec_rotated', body) };
			expect((await post(trigger.url, body, signed)).status).toBe(401);
			expect(reads()).toBe(spent);
			// The sender delivers again later (at least once): by then a re-read is allowed.
			jest.spyOn(Date, 'now').mockReturnValue(now + REREAD_EVERY_MS);
			expect((await post(trigger.url, body, signed)).status).toBe(200);
			expect(reads()).toBe(spent + 1);
			expect(trigger.executions).toHaveLength(1);
		},
	);

	it(
		'the credential cannot be read (deleted, the database down): 20 deliveries, one after ' +
			`another and 20 at once, fail (500) with it read at most ${1 + REREADS_AT_ONCE} times; ` +
			'readable again, the next delivery allowed a re-read passes',
		async () => {
			const { trigger, store } = await triggerWith('unreadable');
			const now = Date.now();
			jest.spyOn(Date, 'now').mockReturnValue(now);
			const getDecrypted = store.getDecrypted.bind(store);
			let failedReads = 0;
			const failing = jest.spyOn(store, 'getDecrypted').mockImplementation(async (...args) => {
				if (args[2] !== WEBHOOK) return await getDecrypted(...args);
				failedReads++;
				throw new Error('The database did not answer');
			});
			const genuine = async (id: string) => {
				const body = sale(id);
				return (await post(trigger.url, body, { 'x-signature': sign(SECRET, body) })).status;
			};
			for (let n = 0; n < 20; n++) expect(await genuine(`unread-${n}`)).toBe(500);
			const at = await Promise.all(
				Array.from({ length: 20 }, async (_, n) => await genuine(`unread-at-once-${n}`)),
			);
			expect(at).toEqual(at.map(() => 500));
			expect(failedReads).toBeLessThanOrEqual(1 + REREADS_AT_ONCE);
			expect(trigger.executions).toEqual([]);
			failing.mockRestore();
			jest.spyOn(Date, 'now').mockReturnValue(now + REREAD_EVERY_MS);
			expect(await genuine('readable-again')).toBe(200);
			expect(trigger.executions).toHaveLength(1);
		},
	);

	it('a genuine delivery after a rotation passes at once while re-reads are left', async () => {
		const { trigger, store } = await triggerWith('rotated-once');
		const first = sale('before-rotation');
		expect((await post(trigger.url, first, { 'x-signature': sign(SECRET, first) })).status).toBe(
			200,
		);
		store.edit('rotated-once', { secret: 'whsec_new' });
		const body = sale('after-rotation');
		expect((await post(trigger.url, body, { 'x-signature': sign('whsec_new', body) })).status).toBe(
			200,
		);
		expect(trigger.executions).toHaveLength(2);
	});
});
