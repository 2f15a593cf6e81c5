import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';

import { startWan, type WanLink } from '../../harness/net/wan';

/**
 * The WAN stand-in the benchmarks run behind: time to the first byte of an answer on a new
 * connection is the TCP handshake plus the request's round trip (2 RTT), plus the TLS 1.3
 * handshake with TLS (3 RTT). Real time is what it delays, so real time is measured, with a
 * tolerance for timers and the TLS handshake's CPU.
 */
const RTT = 100;
let service: http.Server;
let port: number;
const links: WanLink[] = [];

beforeAll(async () => {
	service = http.createServer((req, res) => res.end('ok'));
	await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
	port = (service.address() as net.AddressInfo).port;
});
afterAll(async () => {
	for (const link of links) await link.close();
	await new Promise((resolve) => service.close(resolve));
});

const REQUEST = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';

/**
 * Opens a new connection, sends a request as soon as it may, and resolves with the ms to the
 * answer's first byte and the answer.
 */
function firstByte(
	connect: (ready: () => void) => net.Socket,
): Promise<{ ms: number; text: string }> {
	return new Promise((resolve, reject) => {
		const started = performance.now();
		let ms = 0;
		let text = '';
		const socket = connect(() => socket.write(REQUEST));
		socket.on('data', (chunk: Buffer) => {
			if (ms === 0) ms = performance.now() - started;
			text += chunk.toString();
		});
		socket.on('end', () => resolve({ ms, text }));
		socket.on('error', reject);
	});
}

it('plain: 2 round trips to the first byte of the answer', async () => {
	const link = await startWan({ upstreamPort: port, rttMs: RTT });
	links.push(link);
	const { ms, text } = await firstByte((ready) => net.connect(link.port, '127.0.0.1', ready));
	expect(text).toMatch(/^HTTP\/1\.1 200[\s\S]*ok$/);
	expect(ms).toBeGreaterThanOrEqual(2 * RTT - 5);
	// a round trip short of the next count: load may add time, never a round trip
	expect(ms).toBeLessThan(3 * RTT);
	expect(link.opened).toHaveLength(1);
});

it(
	'TLS with the throwaway certificate: 3 round trips to the ' + 'first byte of the answer',
	async () => {
		const link = await startWan({ upstreamPort: port, rttMs: RTT, tls: true });
		links.push(link);
		const ca = readFileSync(link.caFile!);
		const { ms, text } = await firstByte((ready) =>
			tls.connect({ port: link.port, host: '127.0.0.1', ca }, ready),
		);
		expect(text).toMatch(/^HTTP\/1\.1 200[\s\S]*ok$/);
		expect(ms).toBeGreaterThanOrEqual(3 * RTT - 5);
		expect(ms).toBeLessThan(4 * RTT);
		expect(link.answers.map((a) => a.status)).toEqual([200]);
	},
);

it('a second request on an open connection costs one round trip', async () => {
	const link = await startWan({ upstreamPort: port, rttMs: RTT });
	links.push(link);
	const socket = net.connect(link.port, '127.0.0.1');
	const answer = () =>
		new Promise<number>((resolve) => {
			const started = performance.now();
			socket.once('data', () => resolve(performance.now() - started));
			socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
		});
	await answer();
	const second = await answer();
	socket.destroy();
	expect(second).toBeGreaterThanOrEqual(RTT - 5);
	expect(second).toBeLessThan(2 * RTT);
});
