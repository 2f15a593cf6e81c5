import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy stand-in on loopback in front of one service, as nginx is with two upstreams and
 * its defaults: an idempotent request (not POST) whose upstream answer takes longer than
 * `timeoutMs` is given up and passed on to the next upstream, here the same service again. The
 * first `slowAnswers` requests of a method are answered slowly: the service acts at once, its
 * answer reaches the proxy only after `timeoutMs`. The client hears the last attempt's answer.
 */
export class ResendingProxy {
	/** Each request the proxy passed on, with the attempt it was (1, 2). */
	readonly forwarded: Array<{ method: string; path: string; attempt: number; status?: number }> =
		[];

	private constructor(
		private readonly server: Server,
		readonly url: string,
	) {}

	static async start(
		upstream: string,
		{ timeoutMs = 300, slowAnswers = { PUT: 1 } as Record<string, number> } = {},
	): Promise<ResendingProxy> {
		const server = createServer();
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const proxy = new ResendingProxy(
			server,
			`http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		);
		const slow = { ...slowAnswers };
		server.on('request', (req: IncomingMessage, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const body = Buffer.concat(chunks);
				const method = req.method ?? 'GET';
				const pass = (attempt: number) => {
					const entry = { method, path: req.url ?? '', attempt } as (typeof proxy.forwarded)[0];
					proxy.forwarded.push(entry);
					const slowed = (slow[method] ?? 0) > 0;
					if (slowed) slow[method]--;
					const up = request(
						new URL(req.url ?? '/', upstream),
						{ method, headers: { ...req.headers, host: new URL(upstream).host } },
						(answer) => {
							entry.status = answer.statusCode;
							const relay = () => {
								res.writeHead(answer.statusCode ?? 502, answer.headers);
								answer.pipe(res);
							};
							if (!slowed) return relay();
							// Too late for the proxy: it gives up on this answer.
							answer.resume();
							setTimeout(
								() => (method === 'POST' ? gatewayTimeout() : pass(attempt + 1)),
								timeoutMs,
							);
						},
					);
					up.on('error', () => gatewayTimeout());
					up.end(body);
				};
				const gatewayTimeout = () => {
					res.writeHead(504);
					res.end();
				};
				pass(1);
			});
		});
		return proxy;
	}

	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise((resolve) => this.server.close(resolve));
	}
}
