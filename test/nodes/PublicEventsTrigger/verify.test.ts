import crypto from 'crypto';

import { DEFAULT_MAX_BODY_KB } from '../../../nodes/PublicEventsTrigger/webhook/pushProperties';
import { SECRET, sign, signAt } from '../../../harness/sandbox/push';
import {
	post,
	SIGNED,
	TOKEN,
	TOKEN_HEADER,
	triggerSuite,
	type Triggers,
} from '../../../harness/nodes/webhookTrigger';

/**
 * What the Public Events Trigger refuses, each without starting an execution (the harness's
 * WebhookTrigger records what webhook() handed n8n to start): bad signatures and header tokens,
 * secrets wrong at every length, replays (also under a new delivery id), oversized and
 * malformed bodies.
 */
const { triggers } = triggerSuite({ events: 1, placesPerEvent: 2 });

type Trigger = Awaited<ReturnType<Triggers['start']>>;

const sale = (id: string, extra = '') =>
	`{"id":"${id}","type":"order.sale","data":{"orderId":7}${extra}}`;
const signed = (body: string, secret = SECRET) => ({ 'x-signature': sign(secret, body) });

/** Every call so far was answered `status` and handed n8n nothing to start. */
function expectRefused(trigger: Trigger, status: number) {
	expect(trigger.calls.length).toBeGreaterThan(0);
	expect(trigger.calls.map((call) => [call.status, call.workflowData])).toEqual(
		trigger.calls.map(() => [status, undefined]),
	);
	expect(trigger.executions).toEqual([]);
}

describe('signatures', () => {
	test.each([
		['no header', () => ({})],
		['an empty header', () => ({ 'x-signature': '' })],
		['"sha256=" alone', () => ({ 'x-signature': 'sha256=' })],
		[
			'another algorithm',
			(body: string) => ({ 'x-signature': sign(SECRET, body).replace('sha256=', 'sha1=') }),
		],
		['63 hex digits', (body: string) => ({ 'x-signature': sign(SECRET, body).slice(0, -1) })],
		['65 hex digits', (body: string) => ({ 'x-signature': `${sign(SECRET, body)}0` })],
		['not hex', () => ({ 'x-signature': `sha256=${'z'.repeat(64)}` })],
		['the signature of another body', () => signed(sale('d-other'))],
		['the body with a newline added', (body: string) => signed(`${body}\n`)],
		[
			'the body parsed and serialised again (spacing differs)',
			(body: string) => signed(JSON.stringify(JSON.parse(body), null, 1)),
		],
		[
			'the signature in another header',
			(body: string) => ({ 'x-hub-signature-256': sign(SECRET, body) }),
		],
	])('%s: 401, nothing started', async (_what, headers) => {
		const trigger = await triggers.start(SIGNED);
		const body = sale('d-sig');
		expect((await post(trigger.url, body, headers(body))).status).toBe(401);
		expectRefused(trigger, 401);
	});

	test('the right signature passes, as sha256=<hex> or bare hex in any case', async () => {
		const trigger = await triggers.start(SIGNED);
		for (const [id, form] of [
			['d-1', (s: string) => s],
			['d-2', (s: string) => s.slice(7).toUpperCase()],
		] as const) {
			const body = sale(id);
			expect(
				(await post(trigger.url, body, { 'x-signature': form(sign(SECRET, body)) })).status,
			).toBe(200);
		}
		expect(trigger.executions).toHaveLength(2);
	});
});

describe('signatures with a signed time (t=<unix seconds>,sha256=<HMAC of "<t>.<body>">)', () => {
	const now = () => Math.floor(Date.now() / 1000);
	const hmacAt = (body: string, t: number, secret = SECRET) =>
		signAt(secret, body, t * 1000).split('sha256=')[1];

	test.each([
		['two times', (body: string, t: number) => `t=${t},t=${t},sha256=${hmacAt(body, t)}`],
		[
			'a time that is not a number',
			(body: string, t: number) => `t=${t}x,sha256=${hmacAt(body, t)}`,
		],
		['no sha256 value', (_body: string, t: number) => `t=${t}`],
		['the HMAC over the body alone', (body: string, t: number) => `t=${t},${sign(SECRET, body)}`],
		[
			'five signatures',
			(body: string, t: number) => `t=${t}${`,sha256=${hmacAt(body, t)}`.repeat(5)}`,
		],
	])('%s: 401, nothing started', async (_what, header) => {
		const trigger = await triggers.start(SIGNED);
		const body = sale('d-timed');
		expect((await post(trigger.url, body, { 'x-signature': header(body, now()) })).status).toBe(
			401,
		);
		expectRefused(trigger, 401);
	});

	test(
		'pairs in any order, spaces after commas, an unknown pair, ' +
			'and an old secret next to the new one pass',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const forms = [
				(body: string, t: number) => `sha256=${hmacAt(body, t)}, t=${t}`,
				(body: string, t: number) => `t=${t},v0=ignored,sha256=${hmacAt(body, t)}`,
				(body: string, t: number) =>
					`t=${t},sha256=${hmacAt(body, t, 'whsec_old')},sha256=${hmacAt(body, t)}`,
			];
			for (const [n, form] of forms.entries()) {
				const body = sale(`d-form-${n}`);
				expect((await post(trigger.url, body, { 'x-signature': form(body, now()) })).status).toBe(
					200,
				);
			}
			expect(trigger.executions).toHaveLength(forms.length);
		},
	);
});

describe('secret comparison: wrong at every length, compared in constant time', () => {
	/** Every prefix (the empty one included), one character more, one changed, and far longer. */
	const wrongSecrets = (secret: string) => [
		...Array.from({ length: secret.length }, (_, n) => secret.slice(0, n)),
		`${secret}x`,
		`${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`,
		secret.toUpperCase(),
		secret.repeat(20),
	];

	test(
		'Header Token: each wrong token is refused 401 and compared ' + 'as two equal-length digests',
		async () => {
			const token = 'tok_1234567890abcdef';
			const trigger = await triggers.start(
				{ authentication: 'headerToken', headerName: 'X-Webhook-Token' },
				{ secret: token },
			);
			const compare = jest.spyOn(crypto, 'timingSafeEqual');
			try {
				for (const wrong of wrongSecrets(token)) {
					compare.mockClear();
					const answer = await post(trigger.url, sale(`d-${wrong.length}`), {
						'x-webhook-token': wrong,
					});
					expect([wrong.length, answer.status]).toEqual([wrong.length, 401]);
					// The empty token never reaches the comparison: it is a missing header. Else the
					// secret this process kept, then the one read again at once (secret.ts).
					const lengths = compare.mock.calls.map(([a, b]) => [a.byteLength, b.byteLength]);
					expect(lengths).toEqual(wrong === '' ? [] : lengths.map(() => [32, 32]));
					expect(lengths.length).toBeLessThanOrEqual(2);
				}
			} finally {
				compare.mockRestore();
			}
			expectRefused(trigger, 401);
			expect((await post(trigger.url, sale('d-right'), { 'x-webhook-token': token })).status).toBe(
				200,
			);
			expect(trigger.executions).toHaveLength(1);
		},
	);

	test(
		'Signature: a body signed with each wrong secret is refused ' +
			'401, compared as two 32-byte HMACs',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const compare = jest.spyOn(crypto, 'timingSafeEqual');
			try {
				for (const wrong of wrongSecrets(SECRET)) {
					compare.mockClear();
					const body = sale(`d-${wrong.length}`);
					// The empty key gives an HMAC like any other: it reaches the comparison and fails there.
					expect([
						wrong.length,
						(await post(trigger.url, body, signed(body, wrong))).status,
					]).toEqual([wrong.length, 401]);
					// With the secret this process kept, then with the one read again at once (secret.ts).
					const lengths = compare.mock.calls.map(([a, b]) => [a.byteLength, b.byteLength]);
					expect(lengths).toEqual(lengths.map(() => [32, 32]));
					expect(lengths.length).toBeGreaterThanOrEqual(1);
					expect(lengths.length).toBeLessThanOrEqual(2);
				}
			} finally {
				compare.mockRestore();
			}
			expectRefused(trigger, 401);
		},
	);

	test(
		'a credential with an empty secret refuses every delivery, ' +
			'even one "signed" with the empty secret',
		async () => {
			const trigger = await triggers.start(SIGNED, { secret: '' });
			const body = sale('d-empty');
			const answer = await post(trigger.url, body, signed(body, ''));
			expect(answer).toEqual({
				status: 401,
				text: JSON.stringify({ message: 'The trigger has no secret to check deliveries with' }),
			});
			expectRefused(trigger, 401);
		},
	);
});

describe('replays', () => {
	test(
		'the same signed delivery again, or under a new ' +
			'X-Delivery-ID: 200 "duplicate" naming the signed id, one execution',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const body = sale('ntf_00000042');
			const headers = { ...signed(body), 'x-delivery-id': 'ntf_00000042' };
			expect((await post(trigger.url, body, headers)).status).toBe(200);
			const again = await post(trigger.url, body, headers);
			const renamed = await post(trigger.url, body, {
				...headers,
				'x-delivery-id': 'ntf_99999999',
			});
			const noHeader = await post(trigger.url, body, signed(body));
			// The header is outside the signature: the note names the id the body carries.
			expect(
				[again, renamed, noHeader].map((a) => [a.status, JSON.parse(a.text).duplicate]),
			).toEqual([
				[200, 'ntf_00000042'],
				[200, 'ntf_00000042'],
				[200, 'ntf_00000042'],
			]);
			expect(trigger.executions).toHaveLength(1);
		},
	);

	test(
		'a replay with the body changed (a new id, so it would pass ' +
			'the id check) fails the signature',
		async () => {
			const trigger = await triggers.start(SIGNED);
			const body = sale('ntf_1');
			expect((await post(trigger.url, body, signed(body))).status).toBe(200);
			expect((await post(trigger.url, body.replace('ntf_1', 'ntf_2'), signed(body))).status).toBe(
				401,
			);
			expect(trigger.executions).toHaveLength(1);
		},
	);
});

describe('body size', () => {
	/** A signed sale padded to exactly `bytes`. */
	const sized = (id: string, bytes: number) => {
		const bare = sale(id, ',"pad":""');
		return sale(id, `,"pad":"${'x'.repeat(bytes - bare.length)}"`);
	};

	test(
		`default ${DEFAULT_MAX_BODY_KB} KB: a body of exactly the limit ` +
			`starts one execution; one byte more is 413, signed or not`,
		async () => {
			const limit = DEFAULT_MAX_BODY_KB * 1024;
			const trigger = await triggers.start(SIGNED);
			const atLimit = sized('d-at', limit);
			const over = sized('d-over', limit + 1);
			expect(Buffer.byteLength(atLimit)).toBe(limit);
			const answers = [await post(trigger.url, over, signed(over)), await post(trigger.url, over)];
			expect(answers.map((a) => a.status)).toEqual([413, 413]);
			expect(JSON.parse(answers[0].text)).toEqual({
				message:
					`The body is ${limit + 1} bytes; this trigger ` +
					`takes at most ${limit} (Max Body Size)`,
			});
			expectRefused(trigger, 413);
			expect((await post(trigger.url, atLimit, signed(atLimit))).status).toBe(200);
			expect(trigger.executions).toHaveLength(1);
		},
	);

	test(
		'Max Body Size 1 KB: 1,025 bytes are refused before the ' + 'Security check; 1,024 pass it',
		async () => {
			const trigger = await triggers.start({ ...TOKEN, options: { maxBodyKb: 1 } });
			expect((await post(trigger.url, sized('d-1k', 1025))).status).toBe(413);
			expectRefused(trigger, 413);
			expect((await post(trigger.url, sized('d-1k', 1024), TOKEN_HEADER)).status).toBe(200);
			expect(trigger.executions).toHaveLength(1);
		},
	);
});

describe('malformed bodies, correctly signed', () => {
	test.each([
		[
			'malformed JSON as application/json (n8n answers 422 before the node runs)',
			'{"type": "order.sale", "id": ',
			'application/json',
			422,
		],
		['malformed JSON as text/plain', '{"type": "order.sale", "id": ', 'text/plain', 400],
		['a JSON array', '[{"type":"order.sale"}]', 'application/json', 400],
		['a JSON string', '"order.sale"', 'text/plain', 400],
		['null', 'null', 'text/plain', 400],
		['an empty body', '', 'text/plain', 400],
		['whitespace only', '  \n ', 'text/plain', 400],
	])('%s: refused, nothing started', async (_what, body, contentType, status) => {
		const trigger = await triggers.start(SIGNED);
		expect(
			(await post(trigger.url, body, { 'content-type': contentType, ...signed(body) })).status,
		).toBe(status);
		expectRefused(trigger, status);
	});
});
