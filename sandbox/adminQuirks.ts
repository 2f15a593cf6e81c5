import type { AdminCtx } from './context';
import { HttpError, type Router } from './http';
import { parseQuirks } from './quirks';
import { recordsLeft } from './departures';
import type { ApiState } from './state';

/** The quirks and the other origin on the control surface. */
export function registerQuirksAdmin(router: Router<AdminCtx>): void {
	const state = (app: ApiState) => ({
		quirks: app.quirks,
		text: app.quirksText,
		otherOrigin: app.otherOrigin.url ?? null,
		// Records drop-mid-read took off their lists, by list path.
		recordsLeft: recordsLeft(app),
	});
	const invalid = (error: unknown) =>
		new HttpError(400, { code: 'invalid_quirks', message: (error as Error).message });
	const set = async (app: ApiState, input: unknown) => {
		await app.setQuirks(input).catch((error: unknown) => {
			throw invalid(error);
		});
		return { body: state(app) };
	};
	router
		.add('GET', '/quirks', ({ app }) => ({ body: state(app) }))
		// PUT replaces every quirk (absent = off); PATCH changes only those it names (null = off).
		.add('PUT', '/quirks', ({ app, body }) => set(app, body ?? {}))
		.add('PATCH', '/quirks', ({ app, body }) => {
			let change: Record<string, unknown>;
			try {
				change = typeof body === 'string' ? parseQuirks(body) : { ...(body as object) };
			} catch (error) {
				throw invalid(error);
			}
			const merged: Record<string, unknown> = { ...app.quirks, ...change };
			for (const key of Object.keys(merged)) if (merged[key] === null) delete merged[key];
			return set(app, merged);
		})
		.add('DELETE', '/quirks', ({ app }) => set(app, {}))
		.add('GET', '/other-origin', ({ app }) => ({
			body: { url: app.otherOrigin.url ?? null, requests: app.otherOrigin.requests },
		}))
		.add('DELETE', '/other-origin', ({ app }) => {
			app.otherOrigin.clear();
			return { body: { url: app.otherOrigin.url ?? null, requests: [] } };
		});
}
