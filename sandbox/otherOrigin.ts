import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface OtherOriginRequest {
	/** Real time (epoch ms) it arrived. */
	at: number;
	method: string;
	/** Path with query, as sent. */
	path: string;
	/** Every header as received, Authorization included: what a redirect leaked is the point. */
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

/**
 * Another origin (a second loopback port) that the redirect quirks send clients to. It records
 * every request it receives and answers 200 JSON, so a test can see what a client carried
 * across. Started on first use.
 */
export class OtherOrigin {
	readonly requests: OtherOriginRequest[] = [];
	private server?: Server;
	private starting?: Promise<string>;
	private readonly sockets = new Set<Socket>();
	url?: string;

	constructor(private readonly host: string) {}

	start(): Promise<string> {
		return (this.starting ??= new Promise<string>((resolve, reject) => {
			const server = createServer((req, res) => {
				const chunks: Buffer[] = [];
				req.on('data', (chunk: Buffer) => chunks.push(chunk));
				req.on('end', () => {
					this.requests.push({
						at: Date.now(),
						method: req.method ?? 'GET',
						path: req.url ?? '/',
						headers: { ...req.headers },
						body: Buffer.concat(chunks).toString('utf8'),
					});
					if (this.requests.length > 10_000) this.requests.shift();
					const body = JSON.stringify({
						otherOrigin: true,
						message: 'This is not the Public Events API',
					});
					res.writeHead(200, {
						'content-type': 'application/json; charset=utf-8',
						'content-length': Buffer.byteLength(body),
					});
					res.end(body);
				});
			});
			server.on('connection', (socket) => {
				this.sockets.add(socket);
				socket.on('close', () => this.sockets.delete(socket));
			});
			server.once('error', reject);
			server.listen(0, this.host, () => {
				const address = server.address();
				const port = typeof address === 'object' && address ? address.port : 0;
				this.server = server;
				this.url = `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${port}`;
				resolve(this.url);
			});
		}));
	}

	clear(): void {
		this.requests.length = 0;
	}

	async stop(): Promise<void> {
		if (this.starting) await this.starting.catch(() => undefined);
		const server = this.server;
		if (!server) return;
		this.sockets.forEach((socket) => socket.destroy());
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
}
