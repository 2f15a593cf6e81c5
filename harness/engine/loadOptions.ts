import { LoadOptionsContext } from 'n8n-core';
import type {
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
} from 'n8n-workflow';

import { leakChecked } from '../secrets';
import {
	buildAdditionalData,
	buildWorkflow,
	describeNodeType,
	type NodeUnderTest,
} from './runtime';

export interface LoadOptionsCall extends NodeUnderTest {
	/**
	 * Path of the parameter asking, as the editor sends it (e.g. `parameters.eventId`); `&x` lookups
	 * are relative to it.
	 */
	path?: string;
}

/**
 * The `this` of a node's `methods.listSearch` / `methods.loadOptions` functions, built as n8n's
 * DynamicNodeParametersService does for the editor: a one-node workflow holding the current
 * parameters (n8n fills in their defaults, as the editor would have) and n8n-core's
 * LoadOptionsContext, with `additionalData.currentNodeParameters` set to the same parameters.
 */
export function loadOptionsContext(options: LoadOptionsCall): ILoadOptionsFunctions {
	const { workflow, node } = buildWorkflow(options, false);
	const additionalData = buildAdditionalData(options.credentials, {
		currentNodeParameters: node.parameters,
		mode: 'internal',
	});
	return new LoadOptionsContext(workflow, node, additionalData, options.path ?? 'parameters');
}

function nodeMethod(options: NodeUnderTest, kind: 'listSearch' | 'loadOptions', name: string) {
	const nodeType = options.nodeType;
	const methods =
		'nodeVersions' in nodeType
			? nodeType.getNodeType(options.typeVersion).methods
			: nodeType.methods;
	const method = methods?.[kind]?.[name];
	if (typeof method !== 'function')
		throw new Error(
			`${describeNodeType(nodeType, options.typeVersion).name} has no methods.${kind}.${name}`,
		);
	return method as (this: ILoadOptionsFunctions, ...args: unknown[]) => Promise<unknown>;
}

/** Calls `methods.listSearch[method](filter, paginationToken)`, as the resource locator does. */
export async function callListSearch(
	options: LoadOptionsCall & { method: string; filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	const method = nodeMethod(options, 'listSearch', options.method);
	return await leakChecked(
		`listSearch.${options.method}`,
		options.credentials,
		async () =>
			(await method.call(
				loadOptionsContext(options),
				options.filter,
				options.paginationToken,
			)) as INodeListSearchResult,
	);
}

/** Calls `methods.loadOptions[method]()`, as an options dropdown does. */
export async function callLoadOptions(
	options: LoadOptionsCall & { method: string },
): Promise<INodePropertyOptions[]> {
	const method = nodeMethod(options, 'loadOptions', options.method);
	return await leakChecked(
		`loadOptions.${options.method}`,
		options.credentials,
		async () => (await method.call(loadOptionsContext(options))) as INodePropertyOptions[],
	);
}
