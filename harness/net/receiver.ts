import {
	createServer,
	type IncomingHttpHeaders,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

export interface ReceivedRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	/** The exact bytes received, as text (what a signature is computed over). */
	raw: string;
	/** The status this request was answered with. */
	status: number;
}

export interface ReceiverOptions {
	/** Status of the n-th request (0-based); past the end of the list, `fallback`. */
	statuses?: number[];
	fallback?: number;
}

/**
 * A loopback HTTP server on a free port that records every request and answers from a programmable
 * status sequence.
 */
export class Receiver {
	readonly requests: ReceivedRequest[] = [];
	private statuses: number[];
	private fallback: number;
	private readonly sockets = new Set<Socket>();

	private constructor(
		private readonly server: Server,
		readonly url: string,
		options: ReceiverOptions,
	) {
		this.statuses = [...(options.statuses ?? [])];
		this.fallback = options.fallback ?? 200;
		server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
	}

	static async start(options: ReceiverOptions = {}): Promise<Receiver> {
		const server = createServer();
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(0, '127.0.0.1', resolve);
		});
		const address = server.address();
		if (!address || typeof address !== 'object') throw new Error('receiver has no address');
		const receiver = new Receiver(server, `http://127.0.0.1:${address.port}/hook`, options);
		server.on('request', (req: IncomingMessage, res: ServerResponse) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const status = receiver.statuses[receiver.requests.length] ?? receiver.fallback;
				receiver.requests.push({
					method: req.method ?? '',
					path: req.url ?? '',
					headers: req.headers,
					raw: Buffer.concat(chunks).toString('utf8'),
					status,
				});
				res.writeHead(status, { 'content-type': 'text/plain' });
				res.end(status < 300 ? 'ok' : 'no');
			});
		});
		return receiver;
	}

	/** A URL on a loopback port where nothing listens (a receiver that is down). */
	static async deadUrl(): Promise<string> {
		const receiver = await Receiver.start();
		await receiver.close();
		return receiver.url;
	}

	/** Replaces the status sequence for the requests still to come (counted from now). */
	answer(statuses: number[], fallback = this.fallback): void {
		this.statuses = [...new Array<number>(this.requests.length).fill(0), ...statuses];
		this.fallback = fallback;
	}

	/** Parsed JSON bodies of what arrived so far. */
	bodies<T = any>(): T[] {
		return this.requests.map((r) => JSON.parse(r.raw) as T);
	}

	/** Waits (bounded, polling every few ms) until at least `count` requests have arrived. */
	async waitFor(count: number, timeoutMs = 5000): Promise<ReceivedRequest[]> {
		const deadline = Date.now() + timeoutMs;
		while (this.requests.length < count) {
			if (Date.now() > deadline)
				throw new Error(
					`receiver: expected ${count} request(s), got ` +
						`${this.requests.length} within ${timeoutMs} ms`,
				);
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		return this.requests;
	}

	close(): Promise<void> {
		this.sockets.forEach((socket) => socket.destroy());
		return new Promise((resolve) => this.server.close(() => resolve()));
	}
}
