import { z } from 'zod';

import type { AdminCtx } from './context';
import type { Router } from './http';
import { DEFAULT_OPTIONS } from './options';
import type { ApiState } from './state';
import { check } from './validate';

const share = z.number().min(0).max(1);
const chaosSchema = z
	.object({
		drop: share,
		duplicate: share,
		reorder: share,
		holdMs: z.number().int().min(1).max(3_600_000),
		seed: z.number().int(),
	})
	.partial()
	.strict();

/**
 * Push chaos on the control surface (docs/sandbox.md, "Push chaos"): `GET /push/chaos`; `PUT`
 * sets it (a field left out takes its default) and starts the draws again from the seed;
 * `DELETE` turns it off.
 */
export function registerPushAdmin(router: Router<AdminCtx>): void {
	const set = (app: ApiState, chaos: z.infer<typeof chaosSchema>) => {
		app.options.push = {
			...app.options.push,
			chaos: { ...DEFAULT_OPTIONS.push.chaos, ...chaos },
		};
		app.push.resetChaos();
		return { body: app.options.push.chaos };
	};
	router
		.add('GET', '/push/chaos', ({ app }) => ({ body: app.options.push.chaos }))
		.add('PUT', '/push/chaos', ({ app, body }) => set(app, check(chaosSchema, body ?? {})))
		.add('DELETE', '/push/chaos', ({ app }) => set(app, {}));
}
