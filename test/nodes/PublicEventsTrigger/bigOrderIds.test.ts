import type { IDataObject } from 'n8n-workflow';

import { PublicEventsApi } from '../../../credentials/PublicEventsApi.credentials';
import { PublicEventsWebhookApi } from '../../../credentials/PublicEventsWebhookApi.credentials';
import { CredentialStore, WebhookTrigger } from '../../../harness/engine';
import { answer, answerText, StubApi } from '../../../harness/net/stubApi';
import { postSigned, TRIGGER_TYPE } from '../../../harness/nodes/webhookTrigger';
import { SECRET } from '../../../harness/sandbox/push';
import { PublicEventsTrigger } from '../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';

/**
 * 64-bit order IDs, which the transport keeps exactly: the push trigger reads a notification's long
 * integers as text too, so buyer A's order ...993 is read, keyed and written as itself. (Outside
 * review: JSON.parse made it ...992, buyer B's, and A's notification emitted B's row.)
 */
let api: StubApi;
let trigger: WebhookTrigger;
const A = '9007199254740993';
const B = '9007199254740992';
const order = (id: string, email: string, amount: number) =>
	`{"id":${id},"eventPoint":1001,"status":"paid","payAt":"2026-12-01T10:00:00+00:00",` +
	`"email":"${email}","totalPrice":{"amount":${amount},"currency":"EUR"},` +
	`"tickets":[{"ticketId":${id}1,"status":"sold","price":{"amount":${amount},"currency":"EUR"}}]}`;

beforeAll(async () => {
	api = await StubApi.start();
	api.on('GET /orders/{id}', (res, { path }) => {
		const id = path.split('/')[2];
		if (id === A) return answerText(res, 200, order(A, 'a@example.com', 10));
		if (id === B) return answerText(res, 200, order(B, 'b@example.com', 99));
		answer(res, 404, { message: 'Not found' });
	});
	api.on('GET /event-points', (res) => answer(res, 200, [{ id: 1001, eventName: 'Show' }]));
	api.on('GET /event-points-archived', (res) => answer(res, 200, []));
	const store = new CredentialStore([new PublicEventsApi(), new PublicEventsWebhookApi()]);
	store.add('publicEventsWebhookApi', { secret: SECRET });
	store.add('publicEventsApi', {
		environment: 'staging',
		baseUrl: api.url,
		apiKey: 'key_stub_9d8c7b6a5f4e3d2c1b0a',
	});
	trigger = await WebhookTrigger.start({
		nodeType: new PublicEventsTrigger(),
		type: TRIGGER_TYPE,
		parameters: {
			authentication: 'signature',
			events: ['sale', 'refund'],
			fetchFullOrder: true,
			options: { output: 'rows' },
		},
		credentials: store,
	});
});
afterAll(async () => {
	await trigger.close();
	await api.stop();
});

it('the sale of 64-bit order ...993 (buyer A) gives its own row, not ...992 (B)', async () => {
	const body =
		`{"id":"ntf_1","type":"order.sale","occurredAt":"2026-12-01T10:00:00+00:00",` +
		`"data":{"orderId":${A},"eventPointId":1001,"status":"paid","source":"api"}}`;
	const res = await postSigned(trigger.url, body);
	expect(res.status).toBe(200);
	const rows = trigger.executions.flatMap((run) => run.map((item) => item.json as IDataObject));
	expect(rows.map((r) => [r.key, r.orderId, r.amount])).toEqual([[`sale:api:${A}`, A, 10]]);
});
