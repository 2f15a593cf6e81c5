import { readdirSync, readFileSync } from 'node:fs';

/** Linux clock ticks per second (USER_HZ), what /proc/<pid>/stat counts CPU time in. */
const TICKS_PER_SECOND = 100;

function statFields(pid: number): string[] | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The command name (field 2) may hold spaces: split after its closing parenthesis.
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	} catch {
		return undefined;
	}
}

/** Direct children of `parent` that are still running. */
function childrenOf(parent: number): number[] {
	const pids: number[] = [];
	for (const name of readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		// Fields after the name: state, ppid, ...
		if (Number(statFields(Number(name))?.[1]) === parent) pids.push(Number(name));
	}
	return pids;
}

function readPeak(pid: number): number | undefined {
	try {
		const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
		return kib === undefined ? undefined : Number(kib) / 1024;
	} catch {
		return undefined;
	}
}

function readCpuMs(pid: number): number | undefined {
	const fields = statFields(pid);
	// utime and stime are fields 14 and 15 of stat, 12 and 13 after the name.
	return fields ? ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND : undefined;
}

export interface ProcessPeak {
	/** Peak resident memory (VmHWM) of the child, MiB, as last sampled before it exited. */
	peakMiB: number;
	/** User + system CPU time of the child, ms, as last sampled. */
	cpuMs: number;
}

/**
 * Samples the peak memory of the process this one starts while `run` runs (the `n8n execute`
 * process the harness spawns: a direct child of this process). VmHWM only grows, so the last
 * sample before the exit is the peak but for the last few milliseconds.
 */
export async function sampleChild<T>(
	run: () => Promise<T>,
	everyMs = 20,
): Promise<{ result: T } & ProcessPeak> {
	const before = new Set(childrenOf(process.pid));
	let pid: number | undefined;
	let peakMiB = 0;
	let cpuMs = 0;
	const sample = () => {
		pid ??= childrenOf(process.pid).find((p) => !before.has(p));
		if (pid === undefined) return;
		peakMiB = Math.max(peakMiB, readPeak(pid) ?? 0);
		cpuMs = Math.max(cpuMs, readCpuMs(pid) ?? 0);
	};
	const timer = setInterval(sample, everyMs);
	try {
		const result = await run();
		return { result, peakMiB, cpuMs };
	} finally {
		clearInterval(timer);
	}
}
