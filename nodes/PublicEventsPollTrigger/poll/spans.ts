import { MAX_PAGE_SIZE } from '../../shared/transport';

/**
 * Places each page shares with the one before it. Two records may leave the list between two
 * pages' answers and the pages still share one, which proves nothing was skipped between them.
 */
export const OVERLAP = 3;

/** The places of the list one request covers: `page` of `size` items, from `start` to `end`. */
export interface Span {
	page: number;
	size: number;
	start: number;
	end: number;
}

export const FIRST_SPAN: Span = { page: 1, size: MAX_PAGE_SIZE, start: 0, end: MAX_PAGE_SIZE };

/**
 * The request that reaches furthest past `end` while starting OVERLAP places before it: a page
 * number and a page size (at most MAX_PAGE_SIZE) whose product lands there. Sizes fall from 97
 * towards 73 and jump back as the numbers line up: some 86 new places a request.
 */
export function spanAfter(end: number): Span {
	let best: Span | undefined;
	for (let size = MAX_PAGE_SIZE; size > 0; size--) {
		const page = Math.floor((end - OVERLAP) / size) + 1;
		if (!best || page * size > best.end)
			best = { page, size, start: (page - 1) * size, end: page * size };
	}
	return best!;
}

/** The spans of one reading, the n-th (from 1) made when first asked for. */
export class Spans {
	private readonly list: Span[];

	constructor(first: Span) {
		this.list = [first];
	}

	at(n: number): Span {
		while (this.list.length < n) this.list.push(spanAfter(this.list[this.list.length - 1].end));
		return this.list[n - 1];
	}

	/** The first span that reaches `total` places. */
	covering(total: number): number {
		let n = 1;
		while (this.at(n).end < total) n++;
		return n;
	}
}
