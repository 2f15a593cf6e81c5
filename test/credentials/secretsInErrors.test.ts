/**
 * what a node run's error (saved with the execution, shown to everyone who can open
 * the workflow's executions, sent on to error workflows and logs) echoes of the credential.
 * Invariant: an error carries no password the credential holds, wherever the partner typed it.
 */
import { SandboxClient } from '../../harness/sandbox/client';
import { credentialFor, runPublicEvents } from '../../harness/nodes/publicEvents';
import { onlyEvents } from '../../harness/sandbox/suite';

let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(1, 5));
});
afterAll(() => sb.stop());

const list = { resource: 'event', operation: 'getMany', returnAll: false, limit: 1 } as never;
const errorText = (r: Awaited<ReturnType<typeof runPublicEvents>>) =>
	JSON.stringify({ message: r.error?.message, description: r.error?.description });

it('a gateway password in the Base URL (https://user:pass@host) is not in errors', async () => {
	const port = new URL(sb.sandbox.baseUrl).port;
	const password = 'Gw-Pass-9f8e7d6c';
	const { store } = credentialFor(sb, {
		baseUrl: `http://gw-user:${password}@127.0.0.1:${port}`,
		apiKey: 'pe_revoked_key_0123456789',
	});
	const run = await runPublicEvents(store, list);
	expect(run.error).toBeDefined();
	expect(errorText(run)).not.toContain(password);
});

it('the API key pasted into Base URL (fields swapped) is not in the error', async () => {
	const key = 'pe_live_7Hq2mX9vR4kT8wZ1nB6c';
	const { store } = credentialFor(sb, {
		environment: 'production',
		baseUrl: key,
		apiKey: 'https://tickets.example.com',
	});
	const run = await runPublicEvents(store, list);
	expect(run.error).toBeDefined();
	expect(errorText(run)).not.toContain(key);
});
