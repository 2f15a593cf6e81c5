import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The secret agreed with the service for push deliveries: the token of Header Token, or the
 * HMAC key of Signature. A credential, as n8n's own Webhook node keeps its header and basic auth:
 * credentials are stored encrypted, while node parameters travel in plain text with every
 * workflow export, template and version. No request can check it; the trigger node's
 * `testedBy` method checks its form.
 */
export class PublicEventsWebhookApi implements ICredentialType {
	name = 'publicEventsWebhookApi';

	displayName = 'Public Events Webhook API';

	icon = {
		light: 'file:../nodes/PublicEvents/publicEvents.svg',
		dark: 'file:../nodes/PublicEvents/publicEvents.dark.svg',
	} as const;

	documentationUrl =
		'https://github.com/public-events/n8n-nodes-public-events#public-events-trigger-push';

	properties: INodeProperties[] = [
		{
			displayName: 'Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The token (Security: Header Token) or signing key (Security: ' +
				'Signature) agreed with the service for deliveries to this trigger',
		},
	];
}
