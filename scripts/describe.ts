// What n8n loads from this package's build (dist/), as JSON: each node's description (and, for the
// action node, the tool n8n derives from it with its own converter when n8n is installed), the
// list methods and the credentials. `npm run describe > before.json` before a refactor, again
// after, then diff: a change that should not change behaviour leaves the two equal.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import type { ICredentialType, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { findInstall } from './n8n/install';

const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	n8n: { nodes: string[]; credentials: string[] };
};
const fromBuild = createRequire(join(root, 'package.json'));
/** Each class a file of the build exports, made as n8n's loader makes it. */
const load = <T>(file: string): T => {
	const exported = fromBuild(join(root, file)) as Record<string, new () => T>;
	return new (Object.values(exported)[0])();
};

/** Functions (a credential test, a list method) shown by name, so a renamed one shows. */
const plain = (value: unknown) =>
	JSON.parse(
		JSON.stringify(value, (_key, v: unknown) =>
			typeof v === 'function' ? `[function ${(v as { name: string }).name}]` : v,
		),
	);

function asTool(description: INodeTypeDescription): unknown {
	const install = findInstall();
	if (!install) return 'n8n is not installed: run npm run test:e2e once';
	const fromN8n = createRequire(join(install.dir, 'node_modules', 'n8n', 'package.json'));
	const { convertNodeToAiTool } = fromN8n('./dist/tool-generation/ai-tools.js') as {
		convertNodeToAiTool: (item: { description: INodeTypeDescription }) => unknown;
	};
	return plain(convertNodeToAiTool({ description: plain(description) }));
}

const node = (type: INodeType) => ({
	description: plain(type.description),
	methods: Object.fromEntries(
		Object.entries(type.methods ?? {}).map(([kind, fns]) => [kind, Object.keys(fns).sort()]),
	),
});

const nodes = pkg.n8n.nodes.map((file) => load<INodeType>(file));
console.log(
	JSON.stringify(
		{
			nodes: nodes.map(node),
			tools: nodes.filter((n) => n.description.usableAsTool).map((n) => asTool(n.description)),
			credentials: pkg.n8n.credentials.map((file) => plain(load<ICredentialType>(file))),
		},
		null,
		1,
	),
);
