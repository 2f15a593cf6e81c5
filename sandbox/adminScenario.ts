import { z } from 'zod';

import type { AdminCtx } from './context';
import { releaseExpiredHolds } from './domain/holds';
import type { Router } from './http';
import type { ApiState } from './state';
import { check } from './validate';

/**
 * The scenario report (scenario.ts) over the control surface: POST starts a run of a rush, GET
 * reports it. Both first end the holds whose time has passed, as the next API request would, so
 * a clock moved with no request since still shows them expired.
 */
export function registerScenarioAdmin(router: Router<AdminCtx>): void {
	const report = (app: ApiState) => {
		releaseExpiredHolds(app);
		return app.scenario.report();
	};
	router
		.add('POST', '/scenario', ({ app, body }) => {
			const b = check(z.object({ name: z.string().min(1).max(200) }), body ?? {});
			releaseExpiredHolds(app);
			app.scenario.start(b.name, app.clock.now());
			return { status: 201, body: report(app) };
		})
		.add('GET', '/scenario', ({ app }) => ({ body: report(app) }));
}
