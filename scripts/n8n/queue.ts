/**
 * n8n's queue mode on loopback for the e2e suite: Redis (no persistence) and a throwaway
 * Postgres cluster, both on free ports in temp folders, stopped and removed by `stop()`.
 * Debian's postgresql keeps initdb and pg_ctl in its library folder, and Postgres refuses to run
 * as root: under root the cluster belongs to the `postgres` user. docs/queue-mode.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from './process';

export interface Service {
	port: number;
	stop(): Promise<void>;
}

function waitFor(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	return new Promise((resolve, reject) => {
		const poll = () => {
			if (check()) return resolve();
			if (Date.now() > deadline)
				return reject(new Error(`${what} did not start in ${timeoutMs} ms`));
			setTimeout(poll, 100);
		};
		poll();
	});
}

export async function startRedis(): Promise<Service> {
	const port = await freePort();
	const dir = mkdtempSync(join(tmpdir(), 'pe-redis-'));
	const child = spawn(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
		],
		{
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let out = '';
	child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
	const exited = new Promise((resolve) => child.on('exit', resolve));
	await waitFor(
		() => out.includes('Ready to accept connections'),
		`redis-server (${out.slice(-500)})`,
	);
	return {
		port,
		stop: async () => {
			child.kill('SIGTERM');
			await exited;
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

function postgresBin(name: string): string {
	const base = '/usr/lib/postgresql';
	const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
	for (const version of versions) {
		const file = join(base, version, 'bin', name);
		if (existsSync(file)) return file;
	}
	return name;
}

/**
 * A Postgres cluster; n8n uses its `postgres` database as user `postgres` (trust auth on loopback).
 */
export async function startPostgres(): Promise<Service & { env: Record<string, string> }> {
	const port = await freePort();
	const dir = mkdtempSync(join(tmpdir(), 'pe-postgres-'));
	const asRoot = process.getuid?.() === 0;
	const uid = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : undefined;
	if (uid !== undefined) chownSync(dir, uid, uid);
	const run = (bin: string, args: string[]) =>
		asRoot
			? execFileSync('runuser', ['-u', 'postgres', '--', postgresBin(bin), ...args], {
					stdio: 'pipe',
				})
			: execFileSync(postgresBin(bin), args, { stdio: 'pipe' });
	const data = join(dir, 'data');
	run('initdb', ['-D', data, '--auth=trust', '-U', 'postgres', '--no-sync']);
	run('pg_ctl', [
		'-D',
		data,
		'-l',
		join(dir, 'log'),
		'-o',
		`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
		'-w',
		'start',
	]);
	return {
		port,
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(port),
			DB_POSTGRESDB_DATABASE: 'postgres',
			DB_POSTGRESDB_USER: 'postgres',
			DB_POSTGRESDB_PASSWORD: '',
		},
		stop: async () => {
			try {
				run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		},
	};
}
