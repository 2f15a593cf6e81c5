import type { AdminCtx } from './context';
import type { Router } from './http';

/**
 * A stand-in for the CRM that the "push each sale to a CRM" example posts to, so the demo runs
 * that example green with no outside service: POST keeps the JSON body as it came, GET lists
 * what arrived (oldest first), DELETE forgets it.
 */
export function registerCrmAdmin(router: Router<AdminCtx>): void {
	router
		.add('POST', '/crm/deals', ({ app, body }) => {
			const deal = { receivedAt: new Date(app.clock.now()).toISOString(), body: body ?? null };
			app.crmDeals.push(deal);
			return { status: 201, body: { received: app.crmDeals.length } };
		})
		.add('GET', '/crm/deals', ({ app }) => ({ body: app.crmDeals }))
		.add('DELETE', '/crm/deals', ({ app }) => {
			app.crmDeals.length = 0;
			return { body: [] };
		});
}
