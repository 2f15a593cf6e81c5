import { byTime, type FeedRecord } from './feed';

/**
 * The oldest `size` records across feeds (a poll's RECORDS_PER_POLL); a feed whose records were
 * left out gets a horizon at the first of them.
 */
export class Chunk {
	private held: Array<{ index: number; record: FeedRecord }> = [];
	readonly horizons = new Map<number, number>();
	private readonly size: number;

	constructor(size: number) {
		this.size = size;
	}

	add(index: number, records: FeedRecord[]) {
		for (const record of records) this.held.push({ index, record });
		if (this.held.length > 2 * this.size) this.trim();
	}

	trim() {
		this.held.sort((a, b) => byTime(a.record, b.record));
		for (const { index, record } of this.held.slice(this.size))
			this.horizons.set(index, Math.min(this.horizons.get(index) ?? Infinity, record.time));
		this.held = this.held.slice(0, this.size);
	}

	recordsOf(index: number): FeedRecord[] {
		return this.held.filter((entry) => entry.index === index).map((entry) => entry.record);
	}
}
