import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Delivery {
	headers: Record<string, string>;
	raw: Buffer;
}

/**
 * 'alternate': each request to the next target in turn; 'both': to all at the same moment;
 * 'sticky': by the X-Delivery-ID header, so every copy of a delivery reaches the same target
 * (what docs/queue-mode.md advises a partner's balancer to do).
 */
export type Route = 'alternate' | 'both' | 'sticky';

/**
 * A load balancer stand-in on loopback in front of several n8n webhook processors, routing as
 * `route` says; the sender hears the first answer. Every request is kept with the target it went
 * to first, to be sent again later elsewhere.
 */
export class Balancer {
	readonly deliveries: Array<Delivery & { target: number }> = [];
	route: Route = 'alternate';
	private next = 0;

	private constructor(
		private readonly server: Server,
		readonly url: string,
		private readonly targets: string[],
	) {}

	static async start(targets: string[]): Promise<Balancer> {
		const server = createServer();
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		const balancer = new Balancer(server, `http://127.0.0.1:${port}/`, targets);
		server.on('request', (req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const delivery = { headers: forwardable(req.headers), raw: Buffer.concat(chunks) };
				const target =
					balancer.route === 'sticky'
						? balancer.stickyTarget(delivery)
						: balancer.next++ % balancer.targets.length;
				balancer.deliveries.push({ ...delivery, target });
				const targetsNow =
					balancer.route === 'both' ? balancer.targets : [balancer.targets[target]];
				void Promise.all(targetsNow.map((target) => send(target, delivery))).then(
					([first]) => {
						res.writeHead(first.status, { 'content-type': 'application/json' });
						res.end(first.body);
					},
					() => {
						res.writeHead(502);
						res.end();
					},
				);
			});
		});
		return balancer;
	}

	private stickyTarget(delivery: Delivery): number {
		const id = delivery.headers['x-delivery-id'] ?? '';
		return createHash('sha256').update(id).digest().readUInt32BE(0) % this.targets.length;
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
	const kept: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (
			['host', 'connection', 'content-length', 'transfer-encoding'].includes(name) ||
			value === undefined
		)
			continue;
		kept[name] = Array.isArray(value) ? value.join(', ') : value;
	}
	return kept;
}

/** Sends a kept delivery, byte for byte, to `target`. */
export async function send(
	target: string,
	delivery: Delivery,
): Promise<{ status: number; body: string }> {
	const res = await fetch(target, {
		method: 'POST',
		headers: delivery.headers,
		body: delivery.raw,
		signal: AbortSignal.timeout(60_000),
	});
	return { status: res.status, body: await res.text() };
}
