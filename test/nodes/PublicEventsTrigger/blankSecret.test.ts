/**
 * A webhook Secret of spaces or a line break (the Secret is not `required`, and an expression may
 * leave a bare line break): its credential test calls it empty, and the push trigger treats it as
 * no secret, so nobody starts the workflow with a made-up sale signed with " " (found by an outside
 * review: a blank key was used as the HMAC key).
 */
import { sign } from '../../../harness/sandbox/push';
import { post, SIGNED, triggerSuite } from '../../../harness/nodes/webhookTrigger';
import { runCredentialTest } from '../../../harness/engine/credentialTest';

const { triggers } = triggerSuite({ events: 1, placesPerEvent: 2 });

test.each([' ', '\n', '  \t'])(
	'secret %j: the credential test says empty, yet a sale forged with that HMAC key starts a run',
	async (blank) => {
		const told = await runCredentialTest('publicEventsWebhookApi', { secret: blank });
		expect(told.message).toMatch(/^Secret: empty/);

		const trigger = await triggers.start(SIGNED, { secret: blank });
		const body = '{"id":"forged-1","type":"order.sale","data":{"orderId":7}}';
		const answer = await post(trigger.url, body, { 'x-signature': sign(blank, body) });
		expect({ status: answer.status, runs: trigger.executions.length }).toEqual({
			status: 401,
			runs: 0,
		});
	},
);
