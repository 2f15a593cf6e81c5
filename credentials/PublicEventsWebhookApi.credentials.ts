import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The secret agreed with the service for push deliveries: the token of Header Token, or the
 * HMAC key of Signature. A credential, as n8n's own Webhook node keeps its header and basic auth:
 * credentials are stored encrypted, while node parameters travel in plain text with every
 * workflow export, template and version. No request can check it; the trigger node's
 * `testedBy` function checks its form (nodes/shared/credentialTests.ts).
 */
export class PublicEventsWebhookApi implements ICredentialType {
	name = 'publicEventsWebhookApi';

	displayName = 'Public Events Webhook API';

	icon = {
		light: 'file:../nodes/PublicEvents/publicEvents.svg',
		dark: 'file:../nodes/PublicEvents/publicEvents.dark.svg',
	} as const;

	documentationUrl = 'https://github.com/public-events/n8n-nodes-public-events#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			// Not `required`: n8n's dialog skips the test while a required field is empty, so an
			// empty secret was saved without a word. The test says it is empty instead.
			hint:
				"Agreed with the Public Events service's staff when they switch on push for this " +
				"trigger's Production URL: they give you the secret, or you send them one with the URL",
			description:
				'The token (Security: Header Token) or signing key (Security: Signature) of push ' +
				'deliveries. Push has no self-service setting: the service switches it on for the ' +
				'URL you give them, on request, and the secret is agreed in that request. Ask them for ' +
				'one, or generate at least 16 random characters (32 is usual) and send it with the ' +
				'URL by a private channel. Each delivery carries it or is signed with it; n8n ' +
				'answers 401 to one that is not.',
		},
	];
}
