import type { ServerResponse } from 'node:http';

import type { ApiState } from './state';
import { JsonText, send } from './http';
import type { MangleKind } from './quirks';

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
