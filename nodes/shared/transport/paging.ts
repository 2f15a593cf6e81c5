import type { IDataObject } from 'n8n-workflow';

import { readListPage, type ListPage } from './listEnvelope';
import { inOrder } from './pages';
import { apiRequest, type RequestSettings } from './request';
import type { ApiContext } from './target';

/** The most items the API gives a page (`itemsPerPage`). */
export const MAX_PAGE_SIZE = 100;

/** What bounds a reading in time (the poll's PollBudget): no page goes out once it has no room. */
export interface PageBudget {
	/** Whether a page sent now is expected to answer in time. */
	allowsPage(): boolean;
	/** Times one page's request. */
	timed<T>(request: () => Promise<T>): Promise<T>;
	/** The settings of a request sent now. */
	cap(settings: RequestSettings): RequestSettings;
}

/** A list read page by page. */
export interface PagedList {
	path: string;
	/** The list's own query (filters, sort); each request adds `page` and `itemsPerPage`. */
	qs: IDataObject;
	settings: RequestSettings;
	/** The `page` and `itemsPerPage` of the n-th request (from 1). */
	pageOf: (n: number) => { page: number; itemsPerPage: number };
	/** The error for an answer that is no list, or a page that shows `page` was ignored. */
	unreadable: (reason: string, body?: unknown) => Error;
	budget?: PageBudget;
}

/**
 * The one way lists are read, for the action node's Return All and the poll trigger's windows
 * alike: page 1 alone (it tells the total and the order), then a window of pages in order
 * (pages.ts), each read from any envelope (listEnvelope.ts); the budget, if any, is asked before
 * every page after the first goes out.
 */
export class Pager {
	constructor(
		private readonly context: ApiContext,
		private readonly list: PagedList,
	) {}

	/** The n-th request's page; undefined when the budget leaves no room for it (never the first). */
	async page(n: number, onThrottle?: (sentAt: number) => void): Promise<ListPage | undefined> {
		const { path, qs, settings, budget } = this.list;
		if (n > 1 && budget && !budget.allowsPage()) return undefined;
		const ask = () =>
			apiRequest.call(
				this.context,
				'GET',
				path,
				{ qs: { ...qs, ...this.list.pageOf(n) } },
				{ ...(budget ? budget.cap(settings) : settings), onThrottle },
			);
		const body = budget ? await budget.timed(ask) : await ask();
		const list = readListPage(body);
		if (list) return list;
		throw this.list.unreadable(
			`The answer to GET ${path} is not a list this node can read (a ` +
				`JSON array, or an object with hydra:member, member, items or data)`,
			body,
		);
	}

	/** Page 1, sent alone. */
	async first(): Promise<ListPage> {
		return (await this.page(1))!;
	}

	/**
	 * Requests `from`..`last` (`last` may be Infinity), at most `ceiling` at once, handed to `take`
	 * in order (undefined: the budget stopped it) until it returns false.
	 */
	async window(
		from: number,
		last: number,
		ceiling: number,
		take: (n: number, list: ListPage | undefined) => boolean,
	): Promise<void> {
		await inOrder((n, onThrottle) => this.page(n, onThrottle), from, last, ceiling, take);
	}

	/** Whether `list` starts as the page before it did. */
	repeats(before: ListPage, list: ListPage): boolean {
		return (
			list.items.length > 0 && JSON.stringify(list.items[0]) === JSON.stringify(before.items[0])
		);
	}

	/** Throws when `list` starts as the page before it did: the service answers page 1 again. */
	expectMoved(page: number, before: ListPage, list: ListPage): void {
		if (this.repeats(before, list)) throw this.ignoredPage(page, ` repeats page ${page - 1}`);
	}

	/** A page that shows the service ignored `page`; `symptom` says how. */
	ignoredPage(page: number, symptom: string): Error {
		return this.list.unreadable(
			`Page ${page} of GET ${this.list.path}${symptom}: the service seems to ignore the page ` +
				'parameter',
		);
	}
}
