import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { CHANGE_TYPES, changeTypeOptions } from '../../PublicEvents/shared/changes';

/** Public Events notifications are well under 10 KB; n8n's own limit is 16 MB (N8N_PAYLOAD_SIZE_MAX). */
export const DEFAULT_MAX_BODY_KB = 1024;

/** A type name this node cannot map to one of the four kinds (DESIGN section 4). */
export const OTHER_TYPE = 'other';

const eventOptions: INodePropertyOptions[] = [
	...changeTypeOptions,
	{
		name: 'Other (Unrecognised Type)',
		value: OTHER_TYPE,
		description:
			'A notification whose type name this node cannot map to the four above; the item keeps the name in sourceType',
	},
].sort((a, b) => a.name.localeCompare(b.name));

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'Give this node\'s Production URL to the Public Events service: push delivery is enabled on request, and there is no API to register a URL. Until it is enabled, or if deliveries stop, use the Public Events Poll Trigger: polling is the fallback.',
		name: 'setupNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: eventOptions,
		default: [...CHANGE_TYPES],
		required: true,
		description: 'Which notifications start the workflow; the others are answered 200 and ignored',
	},
	{
		displayName: 'Security',
		name: 'authentication',
		type: 'options',
		options: [
			{ name: 'None', value: 'none', description: 'Accept every delivery to the URL' },
			{
				name: 'Header Token',
				value: 'headerToken',
				description: 'A header must carry the secret of the credential',
			},
			{
				name: 'Signature (HMAC-SHA256)',
				value: 'signature',
				description: 'A header must carry the HMAC-SHA256 of the raw body, keyed with the secret of the credential',
			},
		],
		default: 'none',
		description: 'How a delivery proves it comes from the service. A delivery that fails is answered 401 and starts nothing.',
	},
	{
		displayName: 'Header Name',
		name: 'headerName',
		type: 'string',
		default: 'X-Webhook-Token',
		required: true,
		displayOptions: { show: { authentication: ['headerToken'] } },
		description: 'Name of the header that carries the token',
	},
	{
		displayName: 'Signature Header',
		name: 'signatureHeader',
		type: 'string',
		default: 'X-Signature',
		required: true,
		displayOptions: { show: { authentication: ['signature'] } },
		description: 'Name of the header that carries the signature: "sha256=" and 64 hex digits, or the hex digits alone',
	},
	{
		displayName: 'Fetch Full Order',
		name: 'fetchFullOrder',
		type: 'boolean',
		default: false,
		description:
			'Whether to read the order (tickets with barcodes) with GET /orders/{ID} before emitting a sale or refund. Needs the Public Events API credential. Widget sales are not readable there: their items say so in orderUnavailable.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Delivery ID Header',
				name: 'deliveryIdHeader',
				type: 'string',
				default: 'X-Delivery-ID',
				description:
					'Header naming the delivery, so a repeated delivery starts nothing. Without it the payload\'s deliveryId or ID is used.',
			},
			{
				displayName: 'Max Body Size (KB)',
				name: 'maxBodyKb',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 16384 },
				default: DEFAULT_MAX_BODY_KB,
				description: 'A larger delivery is answered 413 and starts nothing. Public Events notifications are well under 10 KB.',
			},
			{
				displayName: 'Type Field',
				name: 'typeField',
				type: 'string',
				default: '',
				placeholder: 'e.g. meta.eventName',
				description:
					'Payload field holding the notification type (dots for nested fields). Empty: the first of type, event, eventType and kind.',
			},
		],
	},
];
