import { existsSync, readFileSync } from 'node:fs';

/** A running `n8n start` (see N8nInstance.start). */
export class N8nServer {
	constructor(
		readonly url: string,
		private readonly logFile: string,
		readonly stop: () => Promise<void>,
	) {}

	/** The server's log so far (JSON lines, see N8nInstance's N8N_LOG_FORMAT). */
	log(): string {
		return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
	}

	/**
	 * Creates the owner account through n8n's REST API (what the setup screen does) and
	 * returns the `n8n-auth` cookie that signs later REST calls and a browser in.
	 */
	async setupOwner(owner: {
		email: string;
		firstName: string;
		lastName: string;
		password: string;
	}): Promise<string> {
		const res = await fetch(`${this.url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(owner),
		});
		if (!res.ok) throw new Error(`owner setup answered ${res.status}: ${await res.text()}`);
		const cookie = (res.headers.getSetCookie?.() ?? []).find((c) => c.startsWith('n8n-auth='));
		if (!cookie) throw new Error('owner setup set no n8n-auth cookie');
		return cookie.split(';')[0].slice('n8n-auth='.length);
	}

	/** A call to n8n's REST API (`/rest/...`) signed in with an owner cookie. */
	async rest(cookie: string, method: string, path: string, body?: unknown): Promise<any> {
		const res = await fetch(`${this.url}/rest${path}`, {
			method,
			headers: {
				cookie: `n8n-auth=${cookie}`,
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok)
			throw new Error(`${method} /rest${path} answered ${res.status}: ${text.slice(0, 2000)}`);
		return text ? (JSON.parse(text) as { data?: unknown }).data : undefined;
	}

	/**
	 * Publishes (activates) a workflow as the editor's Publish button does. n8n answers before
	 * the triggers are live (a poll trigger's first poll came about 1 s later): wait for them.
	 */
	async activateWorkflow(cookie: string, workflowId: string): Promise<void> {
		const { versionId } = (await this.rest(cookie, 'GET', `/workflows/${workflowId}`)) as {
			versionId: string;
		};
		await this.rest(cookie, 'POST', `/workflows/${workflowId}/activate`, { versionId });
	}
}
