/** Reading what n8n's CLI prints (run with N8N_LOG_FORMAT=json, see N8nInstance). */

export interface LogLine {
	level: string;
	message: string;
	metadata?: Record<string, unknown>;
}

/** n8n's log (N8N_LOG_FORMAT=json: one JSON object a line); other lines kept as raw text. */
export function logLines(stdout: string): LogLine[] {
	return stdout
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((line) => {
			try {
				const parsed = JSON.parse(line) as LogLine;
				if (typeof parsed.message === 'string') return parsed;
			} catch {
				// not a log line
			}
			return { level: 'raw', message: line };
		});
}

/** The run `n8n execute --rawOutput` prints: the last info message that is a run's JSON. */
export function parseRawOutput(stdout: string): any {
	for (const line of logLines(stdout).reverse()) {
		if (line.level !== 'info' || !line.message.startsWith('{')) continue;
		const run = JSON.parse(line.message);
		if (run?.data?.resultData) return run;
	}
	throw new Error(`n8n execute printed no run JSON:\n${stdout.slice(-4000)}`);
}

/** Output items (`json` only) of a node in a run; the last run of it unless `runIndex` is given. */
export function nodeOutput(run: any, nodeName: string, runIndex?: number): any[] {
	const runs = run?.data?.resultData?.runData?.[nodeName];
	if (!runs)
		throw new Error(
			`node "${nodeName}" did not run; nodes that ran: ` +
				`${Object.keys(run?.data?.resultData?.runData ?? {}).join(', ')}`,
		);
	const task = runs[runIndex ?? runs.length - 1];
	if (task.error) throw new Error(`node "${nodeName}" failed: ${task.error.message}`);
	return (task.data?.main?.[0] ?? []).map((item: { json: unknown }) => item.json);
}

/**
 * Whether a CLI run had done its work before it exited: `execute` printed a successful run,
 * an import or export logged "Successfully ...". n8n 2.40.7's CLI calls process.exit() with
 * the vm expression engine's isolate still alive; on a busy machine the process then often
 * dies of SIGSEGV after that point (none in 23 runs with N8N_EXPRESSION_ENGINE=legacy).
 */
export function finishedWork(args: string[], stdout: string): boolean {
	if (args[0] === 'execute') {
		try {
			return !parseRawOutput(stdout).data.resultData.error;
		} catch {
			return false;
		}
	}
	return logLines(stdout).some((l) => l.level === 'info' && l.message.startsWith('Successfully '));
}
