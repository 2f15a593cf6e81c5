import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { CHANGE_TYPES, changeTypeOptions } from '../../shared/changes';
import { outputOption } from '../../shared/ledger/output';
import { DEFAULT_REPLAY_WINDOW_S } from './verify';

/**
 * Public Events notifications are well under 10 KB; n8n's own limit is 16 MB
 * (N8N_PAYLOAD_SIZE_MAX).
 */
export const DEFAULT_MAX_BODY_KB = 1024;

/** A type name this node cannot map to one of the four kinds. */
export const OTHER_TYPE = 'other';

const eventOptions: INodePropertyOptions[] = [
	...changeTypeOptions,
	{
		// In the node creator: "On any other notification". The value stays.
		name: 'Any Other Notification',
		value: OTHER_TYPE,
		description:
			'A notification whose type name this node cannot map to the ' +
			'four above; the item keeps the name in sourceType. Never ' +
			'under Security None: the API has nothing to check it against.',
	},
].sort((a, b) => a.name.localeCompare(b.name));

/** The canvas subtitle: the chosen notifications by their names ("Sale, Refund"), not values. */
export const triggerSubtitle = `={{ $parameter["events"].map((event) => (${JSON.stringify(
	Object.fromEntries(eventOptions.map(({ name, value }) => [value, name])),
)})[event] ?? event).join(", ") }}`;

const securityOptions: INodePropertyOptions[] = [
	{
		name: 'None',
		value: 'none',
		description:
			'Anyone can post to the URL: each delivery is checked with ' +
			'the API first (needs the Public Events API credential)',
	},
	{
		name: 'Header Token',
		value: 'headerToken',
		description: 'A header must carry the secret of the credential',
	},
	{
		name: 'Signature (HMAC-SHA256)',
		value: 'signature',
		description:
			'A header must carry the HMAC-SHA256 of the raw body (and of the time, ' +
			'when the sender signs it), keyed with the secret of the credential',
	},
];

/**
 * Version 1 kept None as its default, and n8n does not store a parameter left at its default:
 * those workflows keep None. From 1.1 a new trigger asks for a secret.
 */
function security(version: number, fallback: string): INodeProperties {
	return {
		displayName: 'Security',
		name: 'authentication',
		type: 'options',
		options: securityOptions,
		default: fallback,
		description:
			'How a delivery proves it comes from the service. A ' +
			'delivery that fails is answered 401 and starts nothing.',
		displayOptions: { show: { '@version': version === 1 ? [1] : [{ _cnd: { gte: version } }] } },
	};
}

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			"Give this node's Production URL to the Public Events service: push delivery is " +
			'enabled on request, and there is no API to register a URL. Until it is enabled, or if ' +
			'deliveries stop, use the Public Events Poll Trigger: polling is the fallback. To test ' +
			'in the editor, click Execute step (Listen for test event in n8n 1.x), then have the ' +
			'service send one test notification to the Test URL (it never sends there by itself).',
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
	security(1, 'none'),
	security(1.1, 'signature'),
	{
		displayName:
			'Anyone who finds this URL can post to it. So each delivery is first checked with ' +
			'the Public Events API (one request, with the Public Events API credential): only ' +
			'a sale of an order the API shows paid, a refund it shows refunded, or an event it ' +
			'shows starts the workflow. Choose Signature when the service signs its deliveries.',
		name: 'noSecurityNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { authentication: ['none'] } },
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
		description:
			'Name of the header that carries the signature: "sha256=" and the 64 ' +
			'hex digits of the HMAC of the body (or the digits alone); or, when ' +
			'the sender signs the time too, "t=" and the Unix time in seconds, a ' +
			'comma, and "sha256=" with the HMAC of the time, a dot and the body',
	},
	{
		displayName: 'Fetch Full Order',
		name: 'fetchFullOrder',
		type: 'boolean',
		default: false,
		displayOptions: { hide: { authentication: ['none'] } },
		description:
			'Whether to read each sale or refund from the API before emitting it, as the ' +
			'poll trigger lists it: the order with amount, status and tickets with barcodes ' +
			'(one more read per delivery; a widget order from the widget sales, with the email), ' +
			'a widget refund. Needs the Public Events API credential. An item whose record cannot be ' +
			'read still comes, saying why in orderUnavailable.',
	},
	// Security None reads the order to check the delivery, so the order always comes with it. This
	// twin keeps the Public Events API credential shown and required (its displayOptions name one
	// parameter).
	{
		displayName: 'Fetch Full Order',
		name: 'fetchFullOrder',
		type: 'hidden',
		default: true,
		displayOptions: { show: { authentication: ['none'] } },
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
					"Header naming the delivery (the item's deliveryId when the payload names " +
					'none). Under Header Token it also tells a repeated delivery; under Signature ' +
					'it is outside the signature, so only the body tells one; under Security None ' +
					'it is not used: anyone can make up an ID.',
			},
			{
				displayName: 'Max Body Size (KB)',
				name: 'maxBodyKb',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 16384 },
				default: DEFAULT_MAX_BODY_KB,
				description:
					'A larger delivery is answered 413 and starts nothing. ' +
					'Public Events notifications are well under 10 KB.',
			},
			{
				...outputOption,
				description:
					"Ledger Rows: the Poll Trigger's rows for the same sale or refund (a refund of " +
					'an API order: a row per ticket), so both triggers feed one table upserted by ' +
					'Key. Costs one more read per delivery (the event list, for eventName).',
				displayOptions: { show: { '/fetchFullOrder': [true] } },
			},
			{
				displayName: 'Replay Window (Seconds)',
				name: 'replayWindowS',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 86400 },
				default: DEFAULT_REPLAY_WINDOW_S,
				displayOptions: { show: { '/authentication': ['signature'] } },
				description:
					'When the sender signs the time with the body ("t=…,sha256=…"), a delivery ' +
					"signed more than this many seconds before or after this server's clock is " +
					'refused (401) and starts nothing. Signatures without a time are not affected.',
			},
			{
				displayName: 'Require Signed Time',
				name: 'requireSignedTime',
				type: 'boolean',
				default: false,
				displayOptions: { show: { '/authentication': ['signature'] } },
				description:
					'Whether to refuse (401) a signature without a signed time ("sha256=…" alone). ' +
					'Such a delivery, captured, can be sent again at any age: each n8n process ' +
					'remembers deliveries in memory only, so after a restart it would start a run ' +
					'again. Turn on when the sender signs the time.',
			},
			{
				displayName: 'Type Field',
				name: 'typeField',
				type: 'string',
				default: '',
				placeholder: 'e.g. meta.eventName',
				description:
					'Payload field holding the notification type (dots for nested ' +
					'fields). Empty: the first of type, event, eventType and kind.',
			},
		],
	},
];
