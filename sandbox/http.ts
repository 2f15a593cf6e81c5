import type { IncomingMessage, ServerResponse } from 'node:http';

export class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly body: Record<string, unknown>,
		readonly headers: Record<string, string> = {},
	) {
		super(String(body.message ?? status));
	}
}

export const badRequest = (field: string, message: string) =>
	new HttpError(400, {
		code: 'validation_failed',
		message: `${field}: ${message}`,
		violations: [{ propertyPath: field, message }],
	});
export const notFound = (what: string) =>
	new HttpError(404, { code: 'not_found', message: `${what} not found` });
export const conflict = (code: string, message: string, extra: Record<string, unknown> = {}) =>
	new HttpError(409, { code, message, ...extra });

/** A body already serialized as JSON (pages assembled from cached member texts). */
export class JsonText {
	private encoded?: Buffer;

	constructor(readonly text: string) {}

	/** UTF-8 bytes, encoded once even when a cached page is sent many times. */
	get bytes(): Buffer {
		return (this.encoded ??= Buffer.from(this.text));
	}
}

export interface Reply {
	status?: number;
	body: unknown;
	headers?: Record<string, string>;
}

export interface Route<C> {
	method: string;
	/** Path template, also the label the request log counts by, e.g. `/orders/{id}`. */
	template: string;
	handler: (ctx: C, params: Record<string, string>) => Reply | Promise<Reply>;
}

interface CompiledRoute<C> extends Route<C> {
	regex: RegExp;
	names: string[];
}

export class Router<C> {
	private readonly routes: Array<CompiledRoute<C>> = [];

	add(method: string, template: string, handler: Route<C>['handler']): this {
		const names: string[] = [];
		const pattern = template
			.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
			.replace(/\{(\w+)\}/g, (_, name: string) => {
				names.push(name);
				return '([^/]+)';
			});
		this.routes.push({ method, template, handler, names, regex: new RegExp(`^${pattern}/?$`) });
		return this;
	}

	/** The matching route, `405` when the path exists under another method, or undefined. */
	match(
		method: string,
		path: string,
	): { route: Route<C>; params: Record<string, string> } | 405 | undefined {
		let pathExists = false;
		for (const route of this.routes) {
			const found = route.regex.exec(path);
			if (!found) continue;
			if (route.method !== method) {
				pathExists = true;
				continue;
			}
			const params: Record<string, string> = {};
			route.names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1])));
			return { route, params };
		}
		return pathExists ? 405 : undefined;
	}
}

const MAX_BODY = 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY)
			throw new HttpError(413, { code: 'payload_too_large', message: 'Request body over 1 MiB' });
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks);
}

export function parseJson(raw: Buffer): unknown {
	if (raw.length === 0) return undefined;
	try {
		return JSON.parse(raw.toString('utf8'));
	} catch {
		throw new HttpError(400, { code: 'invalid_json', message: 'Request body is not valid JSON' });
	}
}

export function send(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const raw = typeof body === 'string';
	const payload = raw ? body : body instanceof JsonText ? body.bytes : JSON.stringify(body);
	res.writeHead(status, {
		'content-type': raw ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(payload),
		...headers,
	});
	res.end(payload);
}
