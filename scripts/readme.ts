// README's table of operations, written from the operation modules: `npm run readme` rewrites it
// between its markers; test/repository/readme.test.ts fails when README differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties } from 'n8n-workflow';

import { requestOptions } from '../nodes/shared/commonFields';
import { allOperations } from '../nodes/PublicEvents/resources';

export const README = join(__dirname, '..', 'README.md');
const START = '<!-- operations: written by npm run readme -->';
const END = '<!-- /operations -->';

/** Options every operation has (README says so once), and what only the AI tool shows. */
const COMMON = new Set(requestOptions.map((option) => option.name));
const onTool = (p: INodeProperties) => p.displayOptions?.show?.['@tool']?.[0] === true;

/** A parameter as the table names it: a collection with its entries, in italics. */
function parameter(p: INodeProperties): string | undefined {
	if (p.type === 'notice' || onTool(p)) return undefined;
	if (p.type !== 'collection') return `*${p.displayName}*`;
	const entries = (p.options as INodeProperties[])
		.filter((entry) => !COMMON.has(entry.name))
		.map((entry) => entry.displayName);
	return entries.length ? `*${p.displayName}*: ${entries.join(', ')}` : undefined;
}

export function operationsTable(): string {
	const rows = allOperations.map(({ resource, operation }) => {
		const names = [...new Set(operation.properties.map(parameter))].filter(Boolean);
		const change = operation.kind === 'write' ? 'writes' : 'reads';
		const cells = [resource.name, operation.option.name, operation.option.description, change];
		return `| ${[...cells, names.join('; ')].join(' | ')} |`;
	});
	const head = [
		'| resource | operation | what it does | reads or writes | parameters |',
		'|---|---|---|---|---|',
	];
	return [START, ...head, ...rows, END].join('\n');
}

/** README with its table written anew. */
export function readmeWithTable(readme: string): string {
	const start = readme.indexOf(START);
	const end = readme.indexOf(END);
	if (start < 0 || end < start) throw new Error(`README has no ${START} ... ${END} block`);
	return readme.slice(0, start) + operationsTable() + readme.slice(end + END.length);
}

if (require.main === module) {
	writeFileSync(README, readmeWithTable(readFileSync(README, 'utf8')));
	console.log('README: operations table written');
}
