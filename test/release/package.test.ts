// What n8n checks before it verifies a community node, run on this checkout: the Cloud support
// status (strict mode + the default lint config), n8n's scanner on source and tarball, the
// publish workflow (provenance from GitHub Actions) and the tarball's contents.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const run = promisify(execFile);
const root = join(__dirname, '../..');
const plain = (s: string) =>
	s.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
// jest sets NODE_ENV=test, under which eslint-plugin-n8n-nodes-base checks file names against a
// test fixture's name instead of the real one: run n8n's tools as n8n runs them.
const env = { ...process.env };
delete env.NODE_ENV;

jest.setTimeout(180_000);

beforeAll(async () => {
	// The tarball n8n scans holds dist/: build it from this checkout.
	await run('npm', ['run', 'build'], { cwd: root });
});

test('n8n-node cloud-support: eligible for n8n Cloud verification', async () => {
	const { stdout, stderr } = await run('npx', ['n8n-node', 'cloud-support'], { cwd: root, env });
	const out = plain(stdout + stderr);
	expect(out).toContain('using default config');
	expect(out).toMatch(/Status: eligible for n8n Cloud verification/);
	expect(readFileSync(join(root, 'eslint.config.mjs'), 'utf8').replace(/\s+/g, ' ').trim()).toBe(
		"import { config } from '@n8n/node-cli/eslint'; export default config;",
	);
});

test("n8n's scanner passes on the source and on the packed tarball", async () => {
	const { stdout } = await run('node', ['scripts/scan.mjs'], { cwd: root, env });
	expect(stdout).toContain('source: passed');
	expect(stdout).toContain('tarball: passed');
});

test('npm pack holds dist only (and what npm always adds)', async () => {
	const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: root,
	});
	const files: string[] = JSON.parse(stdout)[0].files.map((f: { path: string }) => f.path);
	const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
	expect(files.filter((f) => !f.startsWith('dist/')).sort()).toEqual([
		'LICENSE.md',
		'README.md',
		'package.json',
	]);
	for (const entry of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) expect(files).toContain(entry);
	expect(files.some((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toBe(false);
	expect(files.some((f) => /^dist\/(test|sandbox|bench|scripts)\//.test(f))).toBe(false);
});

// n8n's installer drops peer dependencies before it installs; a partner installing by hand
// (`npm install n8n-nodes-public-events` in ~/.n8n/nodes) runs plain npm, which installs peers
// unless they are optional: without that, 163 packages and a second n8n-workflow whose error
// classes are not n8n's own.
test('installed by hand with plain npm in an empty nodes folder, it adds one package', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'pe-by-hand-'));
	try {
		const { stdout } = await run(
			'npm',
			['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
			{ cwd: root },
		);
		const nodes = join(dir, 'home', '.n8n', 'nodes');
		mkdirSync(nodes, { recursive: true });
		await run(
			'npm',
			['install', '--no-audit', '--no-fund', join(dir, JSON.parse(stdout)[0].filename)],
			{ cwd: nodes },
		);
		expect(
			readdirSync(join(nodes, 'node_modules')).filter((name) => !name.startsWith('.')),
		).toEqual(['n8n-nodes-public-events']);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('publish workflow: version tags, id-token write, n8n-node release with provenance', () => {
	const wf = parse(readFileSync(join(root, '.github/workflows/publish.yml'), 'utf8'));
	expect(wf.on.push.tags).toEqual(['*.*.*']);
	const job = wf.jobs.publish;
	expect(job.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
	const runs = job.steps.map((s: { run?: string }) => s.run ?? '').join('\n');
	expect(runs).toContain('npm run release');
	const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
	// n8n-node release publishes with NPM_CONFIG_PROVENANCE=true when GITHUB_ACTIONS is set.
	expect(pkg.scripts.release).toBe('n8n-node release');
	expect(pkg.scripts.prepublishOnly).toBe('n8n-node prerelease');
	expect(pkg.repository.url).toContain(new URL(pkg.homepage).pathname.replace(/#.*$/, ''));
});

test('CI workflow: install, lint, build, test on pull requests and pushes', () => {
	const wf = parse(readFileSync(join(root, '.github/workflows/ci.yml'), 'utf8'));
	expect(Object.keys(wf.on)).toEqual(expect.arrayContaining(['pull_request', 'push']));
	const runs = Object.values(wf.jobs).flatMap((j: any) =>
		j.steps.map((s: { run?: string }) => s.run ?? ''),
	);
	const order = ['npm install', 'npm run lint', 'npm run build', 'npm test'].map((cmd) =>
		runs.findIndex((r: string) => r.startsWith(cmd)),
	);
	expect(order.every((i) => i >= 0)).toBe(true);
	expect([...order].sort((a, b) => a - b)).toEqual(order);
});
