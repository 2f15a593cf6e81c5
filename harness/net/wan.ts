import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

/**
 * A stand-in for a wide-area link, in user space (this machine's kernel has no netem): a TCP
 * proxy on loopback that holds every chunk half a round trip in each direction and a new
 * connection's first bytes one more round trip (the TCP handshake). With `tls`, a terminator
 * behind the delay answers TLS with a throwaway self-signed certificate made by the openssl CLI
 * at start (`caFile`, for NODE_EXTRA_CA_CERTS), so its handshake pays the delays too:
 * time to first byte on a new connection is 2 round trips plain, 3 with TLS 1.3.
 */
export interface WanOptions {
	/** Where the service listens (loopback). */
	upstreamPort: number;
	rttMs: number;
	tls?: boolean;
}

export interface WanLink {
	/** http(s)://127.0.0.1:port */
	url: string;
	port: number;
	/** The self-signed certificate to trust (TLS only). */
	caFile?: string;
	/** Connections the client opened (epoch ms, the client's own time: the proxy is on its side). */
	opened: number[];
	/** Answers seen by the TLS terminator, with the time the client got them (TLS only). */
	answers: Array<{ status: number; retryAfter?: string; deliveredAt: number }>;
	setRtt(rttMs: number): void;
	close(): Promise<void>;
}

/**
 * Passes chunks from `from` to `to`, each `delay()` ms after it came, the first not before
 * `notBefore`. One queue and one timer per direction: separate timers per chunk can fire out of
 * order when their due times meet (Node orders timers by duration list), which corrupts a TLS
 * stream ("bad record mac").
 */
function delayed(
	from: net.Socket,
	to: net.Socket,
	delay: () => number,
	notBefore = 0,
	onDeliver?: (chunk: Buffer) => void,
) {
	const queue: Array<{ at: number; chunk?: Buffer; end?: 'end' | 'destroy' }> = [];
	let timer: NodeJS.Timeout | undefined;
	const drain = () => {
		timer = undefined;
		while (queue.length > 0 && queue[0].at <= Date.now()) {
			const { chunk, end } = queue.shift()!;
			if (to.destroyed) continue;
			if (chunk) {
				to.write(chunk);
				onDeliver?.(chunk);
			} else if (end === 'end') to.end();
			else to.destroy();
		}
		if (queue.length > 0) timer = setTimeout(drain, queue[0].at - Date.now());
	};
	const push = (entry: { chunk?: Buffer; end?: 'end' | 'destroy' }) => {
		const last = queue.at(-1)?.at ?? 0;
		queue.push({ ...entry, at: Math.max(Date.now() + delay(), notBefore + delay(), last) });
		if (!timer) timer = setTimeout(drain, queue[0].at - Date.now());
	};
	from.on('data', (chunk: Buffer) => push({ chunk }));
	let ended = false;
	from.on('end', () => {
		ended = true;
		push({ end: 'end' });
	});
	from.on('error', () => to.destroy());
	// After an end, destroying too could cut what `to` has not flushed yet.
	from.on('close', () => {
		if (!ended) push({ end: 'destroy' });
	});
}

function selfSignedCertificate(): { dir: string; key: Buffer; cert: Buffer; caFile: string } {
	const dir = mkdtempSync(join(tmpdir(), 'wan-tls-'));
	const keyFile = join(dir, 'key.pem');
	const caFile = join(dir, 'cert.pem');
	execFileSync(
		'openssl',
		[
			'req',
			'-x509',
			'-newkey',
			'ec',
			'-pkeyopt',
			'ec_paramgen_curve:prime256v1',
			'-nodes',
			'-days',
			'1',
			'-subj',
			'/CN=127.0.0.1',
			'-addext',
			'subjectAltName=IP:127.0.0.1,DNS:localhost',
			'-keyout',
			keyFile,
			'-out',
			caFile,
		],
		{ stdio: 'ignore' },
	);
	return { dir, key: readFileSync(keyFile), cert: readFileSync(caFile), caFile };
}

const listen = (server: net.Server) =>
	new Promise<number>((resolve) =>
		server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
	);

export async function startWan(options: WanOptions): Promise<WanLink> {
	let rtt = options.rttMs;
	const half = () => rtt / 2;
	const sockets = new Set<net.Socket>();
	const track = (socket: net.Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		return socket;
	};
	const link: WanLink = {
		url: '',
		port: 0,
		opened: [],
		answers: [],
		setRtt: (ms) => (rtt = ms),
		close: async () => {},
	};

	// TLS terminator (no delay of its own) between the delay and the service.
	let terminator: tls.Server | undefined;
	let certificate: ReturnType<typeof selfSignedCertificate> | undefined;
	let nextHop = options.upstreamPort;
	if (options.tls) {
		certificate = selfSignedCertificate();
		terminator = tls.createServer(
			{ key: certificate.key, cert: certificate.cert, minVersion: 'TLSv1.3' },
			(clear) => {
				track(clear);
				const upstream = track(net.connect(options.upstreamPort, '127.0.0.1'));
				clear.pipe(upstream);
				upstream.on('data', (chunk: Buffer) => {
					const text = chunk.toString('latin1');
					for (const match of text.matchAll(/HTTP\/1\.[01] (\d{3})[^\r]*\r\n((?:[^\r]+\r\n)*)/g)) {
						const retryAfter = /^retry-after:\s*([^\r]+)/im.exec(match[2])?.[1];
						// The client has it half a round trip later.
						link.answers.push({
							status: Number(match[1]),
							...(retryAfter ? { retryAfter } : {}),
							deliveredAt: Date.now() + half(),
						});
					}
					clear.write(chunk);
				});
				upstream.on('end', () => clear.end());
				upstream.on('error', () => clear.destroy());
				clear.on('error', () => upstream.destroy());
			},
		);
		nextHop = await listen(terminator);
	}

	const proxy = net.createServer((client) => {
		track(client);
		const openedAt = Date.now();
		link.opened.push(openedAt);
		const upstream = track(net.connect(nextHop, '127.0.0.1'));
		// The client's first bytes leave once its handshake is done: one round trip after connecting.
		delayed(client, upstream, half, openedAt + rtt);
		delayed(upstream, client, half);
	});
	link.port = await listen(proxy);
	link.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${link.port}`;
	link.caFile = certificate?.caFile;
	link.close = async () => {
		for (const socket of sockets) socket.destroy();
		await new Promise((resolve) => proxy.close(resolve));
		if (terminator) await new Promise((resolve) => terminator!.close(resolve));
		if (certificate) rmSync(certificate.dir, { recursive: true, force: true });
	};
	return link;
}
