import { finishedWork, parseRawOutput } from '../../../scripts/n8n/output';

/**
 * The real-n8n harness keeps a CLI run that died of a signal only if n8n had finished and
 * printed its work first (n8n 2.40.7 can segfault in process.exit, see finishedWork).
 */
const line = (level: string, message: string) => JSON.stringify({ level, message, metadata: {} });
const run = (error?: object) =>
	JSON.stringify(
		{
			data: { resultData: { runData: {}, ...(error ? { error } : {}) } },
			status: error ? 'error' : 'success',
		},
		null,
		2,
	);
const printed = (...lines: string[]) => lines.join('\n') + '\n';

describe('finishedWork', () => {
	const warn = line('warn', 'Legacy aes-256-cbc encryption key not found');

	it('execute: done once a successful run is printed', () => {
		const stdout = printed(warn, line('info', run()));
		expect(finishedWork(['execute', '--id=x', '--rawOutput'], stdout)).toBe(true);
		expect(parseRawOutput(stdout).status).toBe('success');
	});

	it('execute: not done with no run, a failed run, or a cut-off run', () => {
		const args = ['execute', '--id=x', '--rawOutput'];
		expect(finishedWork(args, printed(warn))).toBe(false);
		expect(finishedWork(args, printed(warn, line('info', run({ message: 'boom' }))))).toBe(false);
		expect(finishedWork(args, printed(warn, line('info', run()).slice(0, 40)))).toBe(false);
	});

	it('import and export: done once n8n logs its "Successfully ..." line', () => {
		const args = ['import:workflow', '--input=f.json'];
		expect(finishedWork(args, printed(warn, line('info', 'Importing 2 workflows...')))).toBe(false);
		expect(
			finishedWork(
				args,
				printed(
					line('info', 'Importing 2 workflows...'),
					line('info', 'Successfully imported 2 workflows.'),
				),
			),
		).toBe(true);
		expect(
			finishedWork(
				['export:credentials', '--all'],
				printed(line('error', 'Successfully exported 1 credentials.')),
			),
		).toBe(false);
	});
});
