import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { request } from 'undici';

const ROOT = resolve(__dirname, '../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

interface Started {
	baseUrl: string;
	keys: { partner: string; organiser: string };
	production: { baseUrl: string; keys: Record<string, string> };
}

/** The first stdout line of the child, within a bounded wait. */
function firstLine(child: ChildProcess, timeoutMs = 15_000): Promise<string> {
	return new Promise((done, fail) => {
		let buffer = '';
		let stderr = '';
		const timer = setTimeout(
			() => fail(new Error(`no stdout line within ${timeoutMs} ms; stderr: ${stderr}`)),
			timeoutMs,
		);
		child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		child.stdout!.on('data', (chunk: Buffer) => {
			buffer += chunk.toString();
			const end = buffer.indexOf('\n');
			if (end >= 0) {
				clearTimeout(timer);
				done(buffer.slice(0, end));
			}
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			fail(new Error(`exited with ${code} before printing a line; stderr: ${stderr}`));
		});
	});
}

function exited(
	child: ChildProcess,
	timeoutMs = 10_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
	if (child.exitCode !== null || child.signalCode !== null)
		return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
	return new Promise((done, fail) => {
		const timer = setTimeout(
			() => fail(new Error(`still running after ${timeoutMs} ms`)),
			timeoutMs,
		);
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			done({ code, signal });
		});
	});
}

async function call(
	method: 'GET' | 'POST',
	url: string,
	options: { token?: string; body?: unknown } = {},
) {
	const headers: Record<string, string> = {};
	if (options.token) headers.authorization = `Bearer ${options.token}`;
	if (options.body !== undefined) headers['content-type'] = 'application/json';
	const res = await request(url, {
		method,
		headers,
		body: options.body === undefined ? undefined : JSON.stringify(options.body),
	});
	const text = await res.body.text();
	return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

describe('sandbox CLI', () => {
	let child: ChildProcess | undefined;
	let started: Started;

	beforeAll(async () => {
		child = spawn(
			TSX,
			[
				'sandbox/cli.ts',
				'--port',
				'0',
				'--production-port',
				'0',
				'--events',
				'3',
				'--now',
				'2027-01-15T12:00:00Z',
			],
			{ cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		started = JSON.parse(await firstLine(child)) as Started;
	}, 20_000);

	afterAll(async () => {
		if (child && child.exitCode === null && child.signalCode === null) {
			child.kill('SIGKILL');
			await exited(child).catch(() => undefined);
		}
	});

	it('prints one JSON line with the base URLs and the keys', () => {
		expect(started.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(started.production.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(started.production.baseUrl).not.toBe(started.baseUrl);
		expect(started.keys.partner).toEqual(expect.any(String));
		expect(started.keys.organiser).toEqual(expect.any(String));
		expect(started.keys.partner).not.toBe(started.keys.organiser);
	});

	it(
		'the staging key gets a token on staging, is ' +
			'refused (401) in production, and lists 3 events',
		async () => {
			const token = await call('POST', `${started.baseUrl}/api/v2/token`, {
				body: { apiKey: started.keys.partner },
			});
			expect(token.status).toBe(200);
			expect(token.body.token.split('.')).toHaveLength(3);

			const refused = await call('POST', `${started.production.baseUrl}/api/v2/token`, {
				body: { apiKey: started.keys.partner },
			});
			expect(refused.status).toBe(401);

			const events = await call('GET', `${started.baseUrl}/api/v2/event-points`, {
				token: token.body.token,
			});
			expect(events.status).toBe(200);
			expect(events.body).toHaveLength(3);
		},
	);

	it('--now starts the sandbox clock at the given time', async () => {
		const state = await call('GET', `${started.baseUrl}/__sandbox/state`);
		expect(Date.parse(state.body.now)).toBeGreaterThanOrEqual(Date.parse('2027-01-15T12:00:00Z'));
		expect(Date.parse(state.body.now)).toBeLessThan(Date.parse('2027-01-15T12:05:00Z'));
	});

	it('SIGTERM stops it: the process exits and the ports close', async () => {
		expect(child!.kill('SIGTERM')).toBe(true);
		const { code, signal } = await exited(child!);
		expect(code === 0 || signal === 'SIGTERM').toBe(true);
		await expect(request(`${started.baseUrl}/__sandbox/state`)).rejects.toThrow();
		await expect(request(`${started.production.baseUrl}/__sandbox/state`)).rejects.toThrow();
	});

	it('--envelope bogus exits with code 2 and names --envelope', async () => {
		const bad = spawn(TSX, ['sandbox/cli.ts', '--port', '0', '--envelope', 'bogus'], {
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stderr = '';
		bad.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		// 'close' comes after the streams end, so all of stderr has been read.
		const code = await new Promise<number | null>((done, fail) => {
			const timer = setTimeout(() => fail(new Error('still running after 15 s')), 15_000);
			bad.once('close', (exitCode) => {
				clearTimeout(timer);
				done(exitCode);
			});
		});
		expect(code).toBe(2);
		expect(stderr).toMatch(/--envelope must be one of array\b/);
	}, 20_000);
});
