export interface LogEntry {
	seq: number;
	/** Real time (epoch ms) the request arrived: what a client's back-off is measured against. */
	at: number;
	/** Sandbox clock at arrival. */
	clock: number;
	method: string;
	/** Route template, e.g. `/orders/{id}/status`; the counters use it. */
	route: string;
	path: string;
	query: string;
	status?: number;
	companyId?: number;
	fault?: string;
}

const MAX_ENTRIES = 200_000;

/**
 * What the API saw: every request with its outcome, and counters per `METHOD /route`. No
 * secrets are kept.
 */
export class RequestLog {
	private entries: LogEntry[] = [];
	private seq = 0;
	counters: Record<string, number> = {};

	start(entry: Omit<LogEntry, 'seq'>): LogEntry {
		const full = { seq: ++this.seq, ...entry };
		this.entries.push(full);
		if (this.entries.length > MAX_ENTRIES)
			this.entries.splice(0, this.entries.length - MAX_ENTRIES);
		const key = `${entry.method} ${entry.route}`;
		this.counters[key] = (this.counters[key] ?? 0) + 1;
		return full;
	}

	since(seq = 0): LogEntry[] {
		return this.entries.filter((entry) => entry.seq > seq);
	}

	get lastSeq(): number {
		return this.seq;
	}

	reset(): void {
		this.entries = [];
		this.counters = {};
	}
}
