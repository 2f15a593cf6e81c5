import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { show, type Inputs } from './inputs';

const FIELD = 'Additional Body Fields (JSON)';

/** Body fields the node sets, and the parameter that sets each: only there can they change. */
const SET_BY: Record<string, string> = {
	eventPoint: 'Event',
	places: 'Places',
	priceCategory: 'Price Category Name or ID',
	reservedMinutes: 'Hold Minutes',
	toStatus: 'New Status',
	promocode: 'Promo Code Name or ID',
};

/**
 * Options entry of every write operation: the service may want fields the API description does not
 * show.
 */
export const additionalBodyOption: INodeProperties = {
	displayName: FIELD,
	name: 'additionalBodyFields',
	type: 'json',
	default: '{}',
	description:
		'A JSON object whose fields are added to the request body, for fields ' +
		'the node does not offer. A field the node sets itself (such as the ' +
		'event, places or status) cannot be replaced here: change its parameter.',
};

/**
 * The body with the user's extra fields added; fails before any request on a value that is not a
 * JSON object, or on a field the node already set: the node checked that value and reads the
 * result back by it, so it must be what is sent.
 */
export function withAdditionalBody(
	options: IDataObject,
	body: IDataObject | undefined,
	inputs: Inputs,
): IDataObject | undefined {
	let extra: unknown = options.additionalBodyFields;
	if (extra === undefined || extra === null || (typeof extra === 'string' && extra.trim() === ''))
		return body;
	if (typeof extra === 'string') {
		try {
			extra = JSON.parse(extra);
		} catch (error) {
			inputs.fail(FIELD, `not valid JSON (${(error as Error).message})`);
		}
	}
	if (!extra || typeof extra !== 'object' || Array.isArray(extra)) {
		inputs.fail(
			FIELD,
			`expected a JSON object such as {"field": "value"}, got ` +
				`${Array.isArray(extra) ? 'an array' : typeof extra === 'object' ? 'null' : typeof extra}`,
		);
	}
	const added = Object.keys(extra);
	if (added.length === 0) return body;
	// Case too: a service may read `EventPoint` as `eventPoint`.
	const own = new Map(Object.keys(body ?? {}).map((name) => [name.toLowerCase(), name]));
	for (const name of added) {
		const taken = own.get(name.toLowerCase());
		if (taken !== undefined)
			inputs.fail(
				FIELD,
				`${show(name)} is set by the node (` +
					`${SET_BY[taken] ?? 'a parameter of this operation'}); change it there`,
			);
	}
	return { ...body, ...(extra as IDataObject) };
}
