import type { ServerResponse } from 'node:http';

import { DEFAULT_ITEMS_PER_PAGE } from './envelope';
import type { ApiState } from './state';
import { JsonText, send } from './http';
import type { MangleKind, Quirks } from './quirks';

/** The redirect a quirk answers this request with, if any (before auth, as a proxy would). */
export function redirectFor(
	app: ApiState,
	method: string,
	route: string,
	host: string | undefined,
	url: URL,
): { status: number; location: string } | undefined {
	const q = app.quirks;
	const tail = `${url.pathname}${url.search}`;
	const other = app.otherOrigin.url;
	if (route === '/token')
		return method === 'POST' && q.redirectToken && other
			? { status: 307, location: `${other}${tail}` }
			: undefined;
	if ((method === 'POST' || method === 'PUT') && q.redirectWrites && other)
		return { status: 307, location: `${other}${tail}` };
	if (method !== 'GET' || !q.redirect) return undefined;
	if (q.redirect === 'cross-origin' && other) return { status: 302, location: `${other}${tail}` };
	return { status: 302, location: `http://${host ?? 'localhost'}/moved${tail}` };
}

const HTML =
	'<!DOCTYPE html><html><head><title>Thank you</title></head>' +
	'<body><h1>Your request has been received</h1></body></html>';

/** A write's answer made unreadable; the write itself has been applied. */
export function sendMangled(
	res: ServerResponse,
	kind: MangleKind,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const socket = res.socket;
	switch (kind) {
		case 'gzip':
			// Plain JSON labelled as gzip: a client that decodes it fails.
			return send(res, status, body, { ...headers, 'content-encoding': 'gzip' });
		case 'html':
			return send(res, 200, HTML, { 'content-type': 'text/html; charset=utf-8' });
		case 'garbage':
			// Not an HTTP status line at all: the client's parser fails.
			socket?.end(
				Buffer.from('\u0000\u0013\u0037 SSH-2.0-not-http \u00ff\u00fe\r\n\r\n', 'latin1'),
			);
			return;
		case 'truncated': {
			const payload =
				body instanceof JsonText
					? body.bytes
					: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
			res.writeHead(status, {
				'content-type': 'application/json; charset=utf-8',
				...headers,
				'content-length': payload.length + 512,
			});
			res.write(payload.subarray(0, Math.ceil(payload.length / 2)), () => socket?.destroy());
			return;
		}
	}
}

/** The sales and refunds lists a poll reads page by page: the ones drop-mid-read thins. */
const SALES_LISTS = /^\/(widget-orders|widget-orders-refunds|event-points\/\d+\/orders)$/;

interface Departures {
	/** The quirks the count below belongs to: new quirks start it again. */
	quirks: Quirks;
	/** Page requests that dropped records so far. */
	drops: number;
	/** Ids of the records that left, per list path. */
	left: Map<string, Set<unknown>>;
}

const departures = new WeakMap<ApiState, Departures>();

function departuresOf(app: ApiState): Departures {
	let state = departures.get(app);
	if (!state) departures.set(app, (state = { quirks: app.quirks, drops: 0, left: new Map() }));
	if (state.quirks !== app.quirks) Object.assign(state, { quirks: app.quirks, drops: 0 });
	return state;
}

/** Records that left their list under drop-mid-read, by list path (for the control surface). */
export function recordsLeft(app: ApiState): Record<string, unknown[]> {
	const { left } = departuresOf(app);
	return Object.fromEntries([...left].map(([path, ids]) => [path, [...ids]]));
}

/**
 * A list as it stands for this page request: without the records that left it, and under
 * drop-mid-read, first without the ones listed just before the page asked for (the records a
 * reader has most likely just read, so every later one moves back onto a page it has already had).
 * They stay gone when the quirk is turned off: they left the list.
 */
export function listedNow<T extends { id?: unknown }>(
	app: ApiState,
	all: readonly T[],
	c: { path: string; page?: number; itemsPerPage?: number },
): readonly T[] {
	if (!SALES_LISTS.test(c.path)) return all;
	const state = departuresOf(app);
	const left = state.left.get(c.path) ?? new Set<unknown>();
	let list = left.size > 0 ? all.filter((item) => !left.has(item.id)) : all;
	const { dropMidRead, dropMidReadCount } = app.quirks;
	const start = ((c.page ?? 1) - 1) * (c.itemsPerPage ?? DEFAULT_ITEMS_PER_PAGE);
	if (!dropMidRead || start === 0 || (dropMidReadCount && state.drops >= dropMidReadCount))
		return list;
	const leaving = new Set(
		list.slice(Math.max(0, start - dropMidRead), start).map((item) => item.id),
	);
	if (leaving.size === 0) return list;
	state.drops += 1;
	for (const id of leaving) left.add(id);
	state.left.set(c.path, left);
	list = list.filter((item) => !leaving.has(item.id));
	return list;
}
