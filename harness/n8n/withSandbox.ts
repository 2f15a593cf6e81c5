import { ensureN8n, N8nInstance, packPackage } from '../../scripts/n8n/instance';
import type { SandboxInit } from '../../sandbox/options';
import { SandboxClient } from '../sandbox/client';

/**
 * A real n8n with the packed package installed, and a sandbox. Install (first time only),
 * sandbox and build run in parallel: they do not depend on each other. If n8n cannot be made,
 * the sandbox and the pack are cleaned up here and the error is thrown on.
 */
export async function n8nWithSandbox(init: SandboxInit = {}) {
	const [install, sandbox, packed] = await Promise.all([
		ensureN8n(),
		SandboxClient.start(init),
		packPackage(),
	]);
	try {
		const n8n = await N8nInstance.create({ install, packed });
		return { install, sandbox, packed, n8n };
	} catch (error) {
		packed.cleanup();
		await sandbox.stop();
		throw error;
	}
}
