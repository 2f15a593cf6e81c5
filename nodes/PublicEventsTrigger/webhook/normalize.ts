import type { IDataObject } from 'n8n-workflow';

import { changeId, changeTime, type ChangeType } from '../../shared/changes';
import { OTHER_TYPE } from './pushProperties';

/**
 * The API does not publish its payload shapes. The sandbox sends `{ id, type, occurredAt,
 * data }`; other senders name the type `event`, `eventType` or `kind`, spell it `order.sale`,
 * `ORDER.REFUND`, `order_paid` or `new_event`, and put ids at the top level or inside `data`.
 * Everything here reads what is there and never fails: an unknown name becomes `other`.
 */
export type NotificationType = ChangeType | typeof OTHER_TYPE;

export interface Notification extends IDataObject {
	type: NotificationType;
	/** The type name as the sender wrote it. */
	sourceType: string | null;
	deliveryId: string | null;
	orderId: string | null;
	eventPointId: string | null;
	/**
	 * ISO text, like the poll trigger's; the sender's text as given when it is not a readable time.
	 */
	occurredAt: string | null;
	/** The payload whole, as received. */
	payload: IDataObject;
}

const TYPE_FIELDS = ['type', 'event', 'eventType', 'kind'];

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

function at(payload: IDataObject, path: string): unknown {
	return path
		.split('.')
		.filter((key) => key !== '')
		.reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), payload);
}

/** `order.sale`, `OrderRefunded`, `new_event` → the four kinds, by the words in the name. */
export function normaliseType(name: string): NotificationType {
	const words = name
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.toLowerCase()
		.split(/[^a-z0-9]+/);
	const has = (...candidates: string[]) => candidates.some((word) => words.includes(word));
	if (has('refund', 'refunds', 'refunded')) return 'refund';
	if (has('sale', 'sales', 'sold', 'paid', 'purchase', 'purchased')) return 'sale';
	if (!has('event', 'events', 'eventpoint', 'session')) return OTHER_TYPE;
	if (has('new', 'created', 'create', 'added', 'published', 'opened')) return 'newEvent';
	if (has('updated', 'update', 'changed', 'modified', 'edited')) return 'eventUpdated';
	return OTHER_TYPE;
}

function isoTime(value: string | number | undefined): string | null {
	const ms = changeTime(value);
	if (ms !== undefined) return new Date(ms).toISOString();
	return value === undefined ? null : String(value);
}

function firstId(sources: IDataObject[], names: string[]): string | null {
	for (const source of sources) {
		for (const name of names) {
			const id = changeId(source[name]);
			if (id !== null) return id;
		}
	}
	return null;
}

/**
 * `deliveryId` is the header's, else the payload's; with `signedBody` the payload's first: under
 * Signature the header is not signed.
 */
export function readNotification(
	payload: IDataObject,
	options: { typeField?: string; headerDeliveryId?: string; signedBody?: boolean },
): Notification {
	const typeField = options.typeField?.trim();
	const typeValue = typeField
		? at(payload, typeField)
		: TYPE_FIELDS.map((field) => payload[field]).find((value) => typeof value === 'string');
	const sourceType =
		typeof typeValue === 'string' && typeValue.trim() !== '' ? typeValue.trim() : null;
	const sources = isObject(payload.data) ? [payload.data, payload] : [payload];
	const scalar = (fields: string[]) =>
		fields
			.map((field) => payload[field])
			.find(
				(value) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number',
			) as string | number | undefined;
	const header = options.headerDeliveryId?.trim() || undefined;
	const body = scalar(['deliveryId', 'delivery_id', 'id']);
	const deliveryId = options.signedBody ? (body ?? header) : (header ?? body);
	return {
		type: sourceType ? normaliseType(sourceType) : OTHER_TYPE,
		sourceType,
		deliveryId: deliveryId === undefined ? null : String(deliveryId),
		orderId: firstId(sources, ['orderId', 'order_id', 'order']),
		eventPointId: firstId(sources, ['eventPointId', 'event_point_id', 'eventPoint', 'event_point']),
		occurredAt: isoTime(
			scalar(['occurredAt', 'occurred_at', 'timestamp', 'createdAt', 'created_at']),
		),
		payload,
	};
}
