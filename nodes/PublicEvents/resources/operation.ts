import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

/**
 * One operation of the action node, whole: everything the node's description, the router, the
 * run hints, the AI tool text and the derived lists (README, tests) know about it comes from here.
 * A module exports these names (`import * as op`); twins that differ only in a few values come
 * from a table of specs and one factory in `<resource>Lists.ts`. Register it in its resource's
 * index.ts.
 */
export type OperationModule = {
	/** The entry in the resource's Operation list; `value` is the saved parameter value. */
	option: INodePropertyOptions & { value: string; description: string; action: string };
	/** The operation's own parameters; the resource index shows them for this operation only. */
	properties: INodeProperties[];
	/** What an AI agent reads about it as a tool; by default its action and description. */
	toolText?: string;
	/** read: changes nothing, items run a few at a time; write: items run one at a time, in order. */
	kind: 'read' | 'write';
	/** A write's words for what each item's run changed, in the hint shown when several items ran. */
	eachRun?: string;
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
	/** Runs once over all input items (they are one data set, such as a table's rows). */
	once?: boolean;
	executeAll?(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
};
/** A resource of the node and its operations, as its index.ts lists them. */
export type ResourceModule = {
	option: { name: string; value: string };
	/** The operation a new node shows first. */
	defaultOperation: string;
	operations: OperationModule[];
};
