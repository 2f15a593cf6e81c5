import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { barcode } from './barcode';
import { event } from './event';
import { hallPlan } from './hallPlan';
import { ledger } from './ledger';
import { order } from './order';
import { reference } from './reference';
import { widget } from './widget';
import type { OperationModule, ResourceModule } from './operation';

/** The node's resources; a new one is one line here (n8n lists them alphabetically). */
export const resources: ResourceModule[] = [
	barcode,
	event,
	hallPlan,
	order,
	reference,
	ledger,
	widget,
];

// Everything below is derived from the operation modules.

export const resourceOptions = resources.map((r) => r.option);

/** The agent's description of an operation, shown on the tool only, after the Operation list. */
function toolDescription(resource: string, operation: OperationModule): INodeProperties {
	const { value, action, description } = operation.option;
	const text = operation.toolText ?? `${action}: ${description}`;
	return {
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 4 },
		default: text,
		description:
			'What the AI agent reads about this tool: what it does, what it answers and where its IDs ' +
			'come from. The default fits the chosen operation.',
		displayOptions: { show: { '@tool': [true], resource: [resource], operation: [value] } },
	};
}

function resourceProperties({ option, defaultOperation, operations }: ResourceModule) {
	const resource = option.value;
	const operationProperty: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: operations
			.map((operation) => operation.option)
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultOperation,
	};
	return [
		operationProperty,
		...operations.map((operation) => toolDescription(resource, operation)),
		...operations.flatMap((operation) =>
			updateDisplayOptions(
				{ show: { resource: [resource], operation: [operation.option.value] } },
				operation.properties,
			),
		),
	];
}

/** Each resource's Operation list and the properties of its operations. */
export const operationProperties: INodeProperties[] = resources.flatMap(resourceProperties);

/** resource -> operation value -> module. */
const byName = new Map(
	resources.map((r) => [r.option.value, new Map(r.operations.map((o) => [o.option.value, o]))]),
);

export function operationOf(resource: string, operation: string): OperationModule | undefined {
	return byName.get(resource)?.get(operation);
}

/** Every operation with its resource, in the node's order. */
export const allOperations = resources.flatMap((r) =>
	r.operations.map((operation) => ({ resource: r.option, operation })),
);
