import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import type { ICredentialType } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { PublicEventsWebhookApi } from '../../credentials/PublicEventsWebhookApi.credentials';
import { REPO_ROOT } from '../../scripts/n8n/instance';

// The node's "Docs" link and the credential's open the repository's pages on GitHub: each must
// land on a heading that exists (a walk-through once followed one to a heading README lacked).
const HOME = 'https://github.com/public-events/n8n-nodes-public-events';
const LINK = new RegExp(`${HOME}(?:/blob/main/([\\w./-]+))?#([\\w-]+)`, 'g');

function filesUnder(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return name === '__schema__' ? [] : filesUnder(path);
		return /\.(ts|json)$/.test(name) ? [path] : [];
	});
}

/** GitHub's anchor of a Markdown heading. */
const anchorOf = (heading: string) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[^\w\- ]/g, '')
		.replace(/ /g, '-');

function anchorsIn(file: string): string[] {
	const text = readFileSync(join(REPO_ROOT, file), 'utf8');
	return [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]));
}

describe('documentation links the editor shows', () => {
	const linksIn = (text: string, from: string) =>
		[...text.matchAll(LINK)].map((m) => ({ from, file: m[1] ?? 'README.md', anchor: m[2] }));
	const credentials: ICredentialType[] = [new PublicEventsApi(), new PublicEventsWebhookApi()];
	const links = [
		...filesUnder(join(REPO_ROOT, 'nodes')).flatMap((path) =>
			linksIn(readFileSync(path, 'utf8'), path.slice(REPO_ROOT.length + 1)),
		),
		// the credentials' links as n8n reads them (a long one is split over two lines)
		...credentials.flatMap((c) =>
			linksIn(`${c.documentationUrl} ${c.httpRequestNode?.docsUrl ?? ''}`, c.name),
		),
	];

	it('are found in the node and credential files', () => {
		expect(links.length).toBeGreaterThanOrEqual(8);
	});

	it('each lands on a heading of a file in the repository', () => {
		const missing = links.filter(({ file, anchor }) => !anchorsIn(file).includes(anchor));
		expect(missing).toEqual([]);
	});
});
