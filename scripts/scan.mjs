// n8n's own scanner (@n8n/scan-community-package), run the way its CLI runs it after fetching a
// published version: on the source (its source patterns) and on the packed, unpacked tarball.
// Its CLI itself needs the package on npm with provenance, so CI runs this instead.
// Usage: node scripts/scan.mjs  (exit 1 on any violation; needs a build: dist/ is what packs)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = process.cwd();
const work = mkdtempSync(join(tmpdir(), 'pe-scan-'));
try {
	const source = await analyzePackage(root, SOURCE_FILE_PATTERNS);
	execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
		cwd: root,
		stdio: 'ignore',
	});
	const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
	execFileSync('tar', ['xzf', join(work, tarball), '-C', work]);
	if (!existsSync(join(work, 'package/dist/nodes')))
		throw new Error('the tarball holds no dist/nodes: run `npm run build` first');
	const packed = await analyzePackage(join(work, 'package'), ['**/*.js', 'package.json']);
	let failed = false;
	for (const [name, result] of [
		['source', source],
		['tarball', packed],
	]) {
		console.log(`${name}: ${result.passed ? 'passed' : `FAILED ${result.message}`}`);
		if (!result.passed) {
			failed = true;
			if (result.details) console.log(result.details);
		}
	}
	process.exitCode = failed ? 1 : 0;
} finally {
	rmSync(work, { recursive: true, force: true });
}
