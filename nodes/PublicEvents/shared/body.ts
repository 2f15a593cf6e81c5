import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Inputs } from './inputs';

const FIELD = 'Additional Body Fields (JSON)';

/** Options entry of every write operation (DESIGN section 4: bodies the spec does not show). */
export const additionalBodyOption: INodeProperties = {
	displayName: FIELD,
	name: 'additionalBodyFields',
	type: 'json',
	default: '{}',
	description:
		'A JSON object merged into the request body; its fields replace the node\'s own. For fields the spec does not show, or where the real service differs.',
};

/** The body with the user's extra fields merged in; a value that is not a JSON object fails before any request. */
export function withAdditionalBody(options: IDataObject, body: IDataObject | undefined, inputs: Inputs): IDataObject | undefined {
	let extra: unknown = options.additionalBodyFields;
	if (extra === undefined || extra === null || (typeof extra === 'string' && extra.trim() === '')) return body;
	if (typeof extra === 'string') {
		try {
			extra = JSON.parse(extra);
		} catch (error) {
			inputs.fail(FIELD, `not valid JSON (${(error as Error).message})`);
		}
	}
	if (!extra || typeof extra !== 'object' || Array.isArray(extra)) {
		inputs.fail(FIELD, `expected a JSON object such as {"field": "value"}, got ${Array.isArray(extra) ? 'an array' : typeof extra === 'object' ? 'null' : typeof extra}`);
	}
	if (Object.keys(extra).length === 0) return body;
	return { ...body, ...(extra as IDataObject) };
}
