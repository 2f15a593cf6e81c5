import type { AdminCtx } from './context';
import { badRequest, HttpError, notFound, type Router } from './http';

/**
 * A stand-in for the CRM that the "push each sale to a CRM" example writes to, so the demo runs
 * that example green with no outside service. Under `/__sandbox`:
 * - `PUT /crm/deals/{externalId}` with a JSON object: creates the deal (201) or replaces its
 *   properties (200), answering the deal; the same sale written twice stays one deal (crm.ts).
 * - `GET /crm/deals`: every deal, oldest first, as `{ externalId, properties, createdAt,
 *   updatedAt, writes }` (`properties` is the body of the latest write); `GET
 *   /crm/deals/{externalId}`: one deal, or 404.
 * - `DELETE /crm/deals`: forgets every deal.
 * - `PUT /crm/outage` `{ "status": 500 }`: every write is answered that status and changes nothing,
 *   until `DELETE /crm/outage`: a CRM that is down.
 */
export function registerCrmAdmin(router: Router<AdminCtx>): void {
	router
		.add('PUT', '/crm/deals/{externalId}', ({ app, body }, params) => {
			const { outage } = app.crm;
			if (outage !== undefined)
				throw new HttpError(outage, { code: 'crm_outage', message: 'The CRM is down' });
			if (typeof body !== 'object' || body === null || Array.isArray(body))
				throw badRequest('body', 'expected a JSON object: the deal');
			const at = new Date(app.clock.now()).toISOString();
			const { deal, created } = app.crm.upsert(params.externalId, body, at);
			return { status: created ? 201 : 200, body: deal };
		})
		.add('GET', '/crm/deals', ({ app }) => ({ body: app.crm.list() }))
		.add('GET', '/crm/deals/{externalId}', ({ app }, params) => {
			const deal = app.crm.get(params.externalId);
			if (!deal) throw notFound(`Deal ${params.externalId}`);
			return { body: deal };
		})
		.add('DELETE', '/crm/deals', ({ app }) => {
			app.crm.clear();
			return { body: [] };
		})
		.add('PUT', '/crm/outage', ({ app, body }) => {
			const status = Number((body as { status?: unknown } | undefined)?.status);
			if (!Number.isInteger(status) || status < 400 || status > 599)
				throw badRequest('status', 'expected an HTTP error status, 400 to 599');
			app.crm.outage = status;
			return { body: { outage: status } };
		})
		.add('DELETE', '/crm/outage', ({ app }) => {
			app.crm.outage = undefined;
			return { body: { outage: null } };
		});
}
