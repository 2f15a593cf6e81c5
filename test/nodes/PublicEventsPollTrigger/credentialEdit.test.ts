/**
 * n8n builds a poll trigger's context once per activation and polls with it until the workflow is
 * unpublished; it does not re-activate on a credential edit. Each poll reads the credential again,
 * so a key saved since is what the next poll uses, and the trigger goes on past the old token's
 * expiry. (Outside review: the transport kept the activation's credential and token for every poll,
 * reading as the old key for up to 24 h, then stopping.) Real n8n: test/e2e/credential.e2e.test.ts.
 */
import { PollContext, TriggersAndPollers } from 'n8n-core';

import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { buildAdditionalData, buildWorkflow } from '../../../harness/engine';
import { credentialFor } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';
import { HOUR, MINUTE } from '../../../harness/time';

let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start({ events: 3, placesPerEvent: 10, widgetOrders: 2 });
});
afterAll(() => sb.stop());

const keyId = (company: 'partner' | 'organiser') =>
	sb.app.store.apiKeys.find((k) => k.key === sb.keys[company])!.id;

/** One activation as n8n-core runs it: one PollContext, polled again and again. */
function activation(store: ReturnType<typeof credentialFor>['store']) {
	const { workflow, node } = buildWorkflow(
		{
			nodeType: new PublicEventsPollTrigger(),
			type: 'CUSTOM.publicEventsPollTrigger',
			parameters: {},
			credentials: store,
		},
		false,
	);
	const additionalData = buildAdditionalData(store, { mode: 'trigger' });
	const refuse = () => {
		throw new Error('emit not expected');
	};
	const context = new PollContext(
		workflow,
		node,
		additionalData,
		'trigger',
		'activate',
		refuse,
		refuse,
	);
	const pollers = new TriggersAndPollers();
	return async () => {
		try {
			await pollers.runPollFunction(workflow, node, context);
			return undefined;
		} catch (error) {
			return error as Error;
		}
	};
}

describe('Poll Trigger after a credential edit', () => {
	it('a poll after the API key was replaced acts with the new key, not the old one', async () => {
		const { store, id } = credentialFor(sb);
		const poll = activation(store);
		const used: number[] = [];
		const stop = sb.app.issuer.observe((e) => {
			if (e.kind === 'used') used.push(e.kid);
		});
		try {
			expect(await poll()).toBeUndefined();
			expect(used.length).toBeGreaterThan(0);
			expect(new Set(used)).toEqual(new Set([keyId('partner')]));

			// The partner's key replaced by the organiser's, saved in n8n's credential dialog.
			store.edit(id, { apiKey: sb.keys.organiser });
			await sb.advanceClock(MINUTE);
			used.length = 0;
			const error = await poll();
			expect(error).toBeUndefined();
			expect(used.length).toBeGreaterThan(0);
			// Fails: every request of the poll still carries the partner's token.
			expect({ after: 'edit', kids: [...new Set(used)] }).toEqual({
				after: 'edit',
				kids: [keyId('organiser')],
			});
		} finally {
			stop();
		}
	});

	it('once the old token expires, the trigger recovers with the key as saved', async () => {
		const { store, id } = credentialFor(sb);
		const poll = activation(store);
		expect(await poll()).toBeUndefined();
		store.edit(id, { apiKey: sb.keys.organiser });
		await sb.advanceClock(25 * HOUR);
		sb.forgetTokens();
		const errors: Array<string | undefined> = [];
		for (let i = 0; i < 3; i++) {
			await sb.advanceClock(MINUTE);
			errors.push((await poll())?.message);
		}
		// Fails: every poll of this activation stops with "credential was edited while this run was
		// going on ... Run it again": the trigger never runs again until it is re-activated.
		expect(errors).toEqual([undefined, undefined, undefined]);
	});
});
