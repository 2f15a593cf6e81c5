import { CredentialTestContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialType,
	INodeCredentialTestResult,
	INodeType,
} from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { PublicEventsWebhookApi } from '../../credentials/PublicEventsWebhookApi.credentials';
import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import * as poll from '../../nodes/PublicEventsPollTrigger/PublicEventsPollTrigger.node';
import { PublicEventsTrigger } from '../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';

/** The package's credential types and nodes, nodes in package.json's order (n8n's load order). */
export const CREDENTIAL_TYPES: ICredentialType[] = [
	new PublicEventsApi(),
	new PublicEventsWebhookApi(),
];
export const NODE_TYPES: INodeType[] = [
	new PublicEvents(),
	new PublicEventsTrigger(),
	new poll.PublicEventsPollTrigger(),
];

/**
 * The function n8n's credential test runs for `type`, found as n8n's CredentialsTester finds it
 * (2.40.7 and 1.123.81 alike): none when the type has a declarative `test` (that runs instead);
 * else the first node that lists the type with `testedBy` names a method of its
 * `methods.credentialTest`.
 */
export function credentialTestOf(type: string): ICredentialTestFunction | undefined {
	const credentialType = CREDENTIAL_TYPES.find((t) => t.name === type);
	if (!credentialType || credentialType.test) return undefined;
	for (const node of NODE_TYPES) {
		const entry = node.description.credentials?.find((c) => c.name === type && c.testedBy);
		if (typeof entry?.testedBy === 'string') return node.methods?.credentialTest?.[entry.testedBy];
	}
	return undefined;
}

/**
 * Runs the test of a credential of `type` holding `data`, in n8n-core's CredentialTestContext (the
 * context n8n's credential test gives the function: a `request` helper and no other).
 */
export async function runCredentialTest(
	type: string,
	data: ICredentialDataDecryptedObject,
): Promise<INodeCredentialTestResult> {
	const test = credentialTestOf(type);
	if (!test) throw new Error(`n8n finds no test function for ${type}`);
	const context = new CredentialTestContext();
	return await test.call(context, { id: '1', name: 'Tested', type, data });
}
