import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

import { SandboxApp } from './app';
import { sandboxState } from './admin';
import { resolveOptions, type SandboxInit } from './options';
import type { OtherOriginRequest } from './otherOrigin';
import type { Quirks } from './quirks';

export { SandboxApp } from './app';
export type { SandboxInit, SandboxOptions, Envelope, Environment } from './options';
export type { OtherOriginRequest } from './otherOrigin';
export { formatQuirks, parseQuirks, type Quirks } from './quirks';

export interface Sandbox {
	/** The service address: append `/api/v2` for the API, `/__sandbox` for the control surface. */
	baseUrl: string;
	environment: string;
	/** API keys by company: `organiser` (organises every seeded event) and `partner`. */
	keys: Record<string, string>;
	/** In-process access to the same state the control surface exposes. */
	app: SandboxApp;
	/** Replaces the quirks (typed or string form); rejects with an Error naming a bad one. */
	setQuirks(quirks: Quirks | string): Promise<Quirks>;
	/** The other origin the redirect quirks point to (started on first use) and what reached it. */
	otherOrigin(): { url?: string; requests: OtherOriginRequest[] };
	stop(): Promise<void>;
}

/** Starts one environment of the API on loopback (port 0 = any free port). */
export async function startSandbox(init: SandboxInit = {}): Promise<Sandbox> {
	const options = resolveOptions(init);
	const app = new SandboxApp(options);
	await app.setQuirks(options.quirks);
	const server: Server = createServer(
		{ keepAliveTimeout: 5000 },
		(req, res) => void app.handle(req, res),
	);
	const sockets = new Set<Socket>();
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port, options.host, resolve);
	});
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : options.port;
	const host = options.host.includes(':') ? `[${options.host}]` : options.host;
	return {
		baseUrl: `http://${host}:${port}`,
		environment: options.environment,
		keys: sandboxState(app).keys,
		app,
		setQuirks: (quirks) => app.setQuirks(quirks),
		otherOrigin: () => ({ url: app.otherOrigin.url, requests: [...app.otherOrigin.requests] }),
		async stop() {
			await app.push.close();
			await app.otherOrigin.stop();
			sockets.forEach((socket) => socket.destroy());
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
