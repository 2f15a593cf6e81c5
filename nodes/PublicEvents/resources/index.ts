import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import * as barcode from './barcode';
import * as event from './event';
import * as hallPlan from './hallPlan';
import * as order from './order';
import * as reference from './reference';
import * as widget from './widget';
import { toolDescriptionProperties } from './toolDescriptions';

export type Operation = (
	this: IExecuteFunctions,
	itemIndex: number,
) => Promise<IDataObject | IDataObject[]>;

/** The node's resources, alphabetical as n8n lists options; a new one is one line here. */
const resources: Array<{
	option: INodePropertyOptions;
	module: { operations: object; description: INodeProperties[] };
}> = [
	{ option: { name: 'Barcode', value: 'barcode' }, module: barcode },
	{ option: { name: 'Event', value: 'event' }, module: event },
	{ option: { name: 'Hall Plan', value: 'hallPlan' }, module: hallPlan },
	{ option: { name: 'Order', value: 'order' }, module: order },
	{ option: { name: 'Reference', value: 'reference' }, module: reference },
	{ option: { name: 'Widget', value: 'widget' }, module: widget },
];

export const resourceOptions = resources.map((r) => r.option);

/** Each resource's properties; on the tool, the agent's description of the operation follows the Operation. */
export const resourceProperties: INodeProperties[] = resources.flatMap((r) =>
	r.module.description.flatMap((p) =>
		p.name === 'operation' ? [p, ...toolDescriptionProperties(String(r.option.value), p)] : [p],
	),
);

/** resource -> operation -> execute. */
export const operations: Record<
	string,
	Record<string, { execute: Operation }>
> = Object.fromEntries(
	resources.map((r) => [
		r.option.value,
		r.module.operations as Record<string, { execute: Operation }>,
	]),
);
