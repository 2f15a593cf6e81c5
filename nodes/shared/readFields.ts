import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	onlyAvailableOption,
	pagesInFlightOption,
	requestOptions,
	splitTicketsOption,
} from './commonFields';
import { Inputs, show } from './inputs';
import {
	LANGUAGE_CODE,
	retryPolicyFrom,
	type PageSettings,
	type RequestSettings,
} from './transport';

// Reads and checks the shared fields of commonFields.ts for one item.

/**
 * A locator or ID field of item `i` as a numeric ID, checked against the field's IRI collections.
 */
export function idParameter(
	this: IExecuteFunctions,
	i: number,
	inputs: Inputs,
	field: INodeProperties,
): string {
	return inputs.id(rawParameter.call(this, i, field), field);
}

/** A locator or ID field of item `i` holding one or more IDs, at least one, each checked. */
export function idsParameter(
	this: IExecuteFunctions,
	i: number,
	inputs: Inputs,
	field: INodeProperties,
): string[] {
	return inputs.someIds(rawParameter.call(this, i, field), field);
}

/** A field's value as given: a locator's value, not its mode. */
function rawParameter(this: IExecuteFunctions, i: number, field: INodeProperties): unknown {
	const extractValue = field.type === 'resourceLocator';
	return this.getNodeParameter(field.name, i, '', { extractValue });
}

/**
 * The query entry of a sortOption (`{ [key]: 'asc' | 'desc' }`), or none for the service's default.
 */
export function sortQuery(
	options: IDataObject,
	key: string,
	inputs: Inputs,
	field: string,
): IDataObject {
	const sort = options.sort;
	if (sort === undefined || sort === null || sort === '') return {};
	if (sort !== 'asc' && sort !== 'desc') inputs.fail(field, 'expected "asc" or "desc"');
	return { [key]: sort };
}

/** Options that are true or false; an expression may give the text "true" / "false". */
const FLAG_OPTIONS = [onlyAvailableOption, splitTicketsOption];

/**
 * The Options entries every operation (and the poll trigger) shares, checked: the retry bounds
 * as the description states them, the language as a code (it becomes a header), flags as booleans.
 */
export function checkedOptions(
	options: IDataObject,
	inputs: Inputs,
): Pick<RequestSettings, 'retry' | 'language'> & { options: IDataObject } {
	const checked = { ...options };
	const numbers = requestOptions.filter((p) => p.type === 'number');
	for (const property of numbers) {
		if (checked[property.name] === undefined) continue;
		const { minValue = 0, maxValue } = property.typeOptions ?? {};
		checked[property.name] = inputs.number(checked[property.name], property.displayName, {
			min: minValue,
			max: maxValue,
			whole: property.name === 'maxRetries',
		});
	}
	for (const { name, displayName } of FLAG_OPTIONS) {
		if (checked[name] !== undefined) checked[name] = inputs.flag(checked[name], displayName);
	}
	// A header value: a name such as "English" would be sent as is and silently ignored.
	const raw = checked.language;
	const language = typeof raw === 'string' ? raw.trim() : raw;
	if (
		language !== undefined &&
		language !== null &&
		language !== '' &&
		(typeof language !== 'string' || !LANGUAGE_CODE.test(language))
	) {
		inputs.fail('Language', `expected a language code such as en or pt-BR, got ${show(raw)}`);
	}
	return {
		options: checked,
		retry: retryPolicyFrom(checked),
		language: (language as string) || undefined,
	};
}

/** Request settings for item `i` from its Options collection. */
export function requestSettings(
	this: IExecuteFunctions,
	i: number,
): RequestSettings & { options: IDataObject } {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	return { ...checkedOptions(options, new Inputs(this.getNode(), i)), itemIndex: i };
}

/** Request settings plus Pages Read at Once of item `i`: a whole list, no Return All. */
export function listSettings(
	this: IExecuteFunctions,
	i: number,
): PageSettings & { options: IDataObject } {
	const inputs = new Inputs(this.getNode(), i);
	const settings: PageSettings & { options: IDataObject } = requestSettings.call(this, i);
	const { maxPagesInFlight } = settings.options;
	if (maxPagesInFlight !== undefined) {
		settings.maxPagesInFlight = inputs.number(maxPagesInFlight, pagesInFlightOption.displayName, {
			min: 1,
			max: 32,
			whole: true,
		});
	}
	return settings;
}

/** Request settings plus the Return All / Limit choice of item `i`. */
export function pageSettings(
	this: IExecuteFunctions,
	i: number,
): PageSettings & { options: IDataObject } {
	const inputs = new Inputs(this.getNode(), i);
	const settings = listSettings.call(this, i);
	if (inputs.flag(this.getNodeParameter('returnAll', i, false), 'Return All'))
		return { ...settings, limit: undefined };
	const limit = inputs.number(this.getNodeParameter('limit', i, 50), 'Limit', {
		min: 1,
		whole: true,
	});
	return { ...settings, limit };
}
