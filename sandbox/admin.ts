import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';

import { registerCrmAdmin } from './adminCrm';
import { registerPushAdmin } from './adminPush';
import { registerQuirksAdmin } from './adminQuirks';
import { registerScenarioAdmin } from './adminScenario';
import { DAY, HOUR, isoTime } from './clock';
import type { AdminCtx } from './context';
import { HttpError, parseJson, readBody, Router, send, type Reply } from './http';
import type { Company, EventPoint } from './model';
import { ENVELOPES } from './options';
import { NOTIFICATION_TYPES } from './push';
import { FUTURE_TIME } from './quirks';
import { buildHall, recordWidgetRefund, recordWidgetSale } from './seed';
import type { ApiState } from './state';
import { check } from './validate';

/**
 * The control surface for tests, demos and benchmarks, apart from /api/v2: the clock,
 * settings, faults, catalog changes, simulated widget sales, push subscriptions, and the
 * request log. Unauthenticated: the sandbox listens on loopback only.
 */
const router = new Router<AdminCtx>();
const companyRef = z.union([z.string(), z.number()]).optional();

function company(app: ApiState, ref: string | number | undefined): Company {
	const found = app.store.companies.find(
		(c) => c.slug === (ref ?? 'partner') || c.id === Number(ref),
	);
	if (!found) throw new HttpError(400, { code: 'unknown_company', message: `No company ${ref}` });
	return found;
}

function adminEvent(app: ApiState, id: string): EventPoint {
	const event = app.store.eventIndex.get(Number(id));
	if (!event) throw new HttpError(404, { code: 'not_found', message: `Event point ${id}` });
	return event;
}

const isoTimeField = z.string().datetime({ offset: true }).optional();

/** A simulated record's time: as given, far ahead under future-dated, else the clock. */
function stampAt(app: ApiState, at: string | undefined): number {
	return at ? Date.parse(at) : app.quirks.futureDated ? FUTURE_TIME : app.clock.now();
}

export function sandboxState(app: ApiState) {
	const { options, store } = app;
	const keys = Object.fromEntries(
		store.apiKeys.map((k) => [store.companies.find((c) => c.id === k.companyId)!.slug, k.key]),
	);
	return {
		environment: options.environment,
		now: isoTime(app.clock.now()),
		envelope: options.envelope,
		limits: options.limits,
		rateLimit: options.rateLimit,
		push: options.push,
		keys,
		events: store.events.length,
		bigEventId: options.bigEventPlaces > 0 ? 1001 : undefined,
		orders: store.orders.size,
		widgetOrders: store.widgetOrders.length,
		widgetRefunds: store.widgetRefunds.length,
		quirks: app.quirksText,
	};
}

router
	.add('GET', '/state', ({ app }) => ({ body: sandboxState(app) }))
	.add('POST', '/clock', ({ app, body }) => {
		const b = check(
			z.object({
				advanceMs: z.number().optional(),
				set: z.string().datetime({ offset: true }).optional(),
			}),
			body ?? {},
		);
		if (b.set) app.clock.set(Date.parse(b.set));
		if (b.advanceMs) app.clock.advance(b.advanceMs);
		return { body: { now: isoTime(app.clock.now()), nowMs: app.clock.now() } };
	})
	.add('PUT', '/config', ({ app, body }) => {
		const b = check(
			z.object({
				envelope: z.enum(ENVELOPES as [string, ...string[]]).optional(),
				limits: z
					.object({
						ticketsPerOrder: z.number().int().min(1),
						reservedPerAccount: z.number().int().min(1),
					})
					.partial()
					.optional(),
				rateLimit: z
					.object({ limit: z.number().int().min(0), windowMs: z.number().int().min(1) })
					.partial()
					.optional(),
				push: z
					.object({
						retryBaseMs: z.number().int().min(0),
						maxAttempts: z.number().int().min(1),
						timeoutMs: z.number().int().min(1),
					})
					.partial()
					.optional(),
			}),
			body ?? {},
		);
		const o = app.options;
		if (b.envelope) o.envelope = b.envelope as typeof o.envelope;
		o.limits = { ...o.limits, ...b.limits };
		o.rateLimit = { ...o.rateLimit, ...b.rateLimit };
		o.push = { ...o.push, ...b.push };
		return { body: sandboxState(app) };
	})
	.add('GET', '/requests', ({ app, query }) => ({
		body: { lastSeq: app.log.lastSeq, entries: app.log.since(Number(query.get('since') ?? 0)) },
	}))
	.add('DELETE', '/requests', ({ app }) => {
		app.log.reset();
		return { body: { lastSeq: app.log.lastSeq } };
	})
	.add('GET', '/counters', ({ app }) => ({
		body: {
			counters: app.log.counters,
			total: Object.values(app.log.counters).reduce((a, b) => a + b, 0),
		},
	}))
	.add('GET', '/faults', ({ app }) => ({ body: app.faults.list() }))
	.add('POST', '/faults', ({ app, body }) => {
		try {
			return {
				status: 201,
				body: (Array.isArray(body) ? body : [body]).map((rule) => app.faults.add(rule)),
			};
		} catch (error) {
			throw new HttpError(400, { code: 'validation_failed', message: (error as Error).message });
		}
	})
	.add('DELETE', '/faults', ({ app }) => {
		app.faults.clear();
		return { body: [] };
	})
	.add('POST', '/events', ({ app, body }) => {
		const b = check(
			z.object({
				name: z.string().min(1).optional(),
				companies: z.array(companyRef).optional(),
				places: z.number().int().min(1).max(100_000).default(40),
				daysFromNow: z.number().default(30),
			}),
			body ?? {},
		);
		const template = app.store.events[0];
		const id = app.store.nextId('eventPoint');
		const name = b.name ?? `New event ${id}`;
		const dateStarted = Math.floor(app.clock.now() / HOUR) * HOUR + b.daysFromNow * DAY;
		const eventId = app.store.nextId('eventId');
		const event: EventPoint = {
			...template,
			id,
			eventId,
			poster: `https://media.sandbox.invalid/posters/${eventId}.jpg`,
			media: [{ type: 'image', url: `https://media.sandbox.invalid/events/${eventId}/1.jpg` }],
			name: { en: name, de: name },
			description: { en: `${name}: newly announced.`, de: `${name}: neu angekündigt.` },
			dateStarted,
			dateEnd: dateStarted + 2 * HOUR,
			dateEndOfSale: dateStarted - HOUR,
			widgetHash: app.random.hex(32),
			companyIds: new Set([
				template.organiserId,
				...(b.companies ?? ['partner']).map((ref) => company(app, ref).id),
			]),
			sectors: [],
			places: [],
			placeIndex: new Map(),
			version: 0,
			updatedAt: app.clock.now(),
		};
		buildHall(app.store, app.random, event, b.places);
		app.store.addEvent(event);
		app.push.publish(event.companyIds, 'event.created', {
			eventPointId: id,
			eventId: event.eventId,
		});
		return { status: 201, body: app.serialize.event(event, 'en') };
	})
	.add('PATCH', '/events/{id}', ({ app, body }, params) => {
		const event = adminEvent(app, params.id);
		const b = check(
			z.object({
				name: z.string().min(1).optional(),
				description: z.string().optional(),
				dateStarted: z.string().datetime({ offset: true }).optional(),
				dateEndOfSale: z.string().datetime({ offset: true }).optional(),
				companies: z.array(companyRef).optional(),
			}),
			body ?? {},
		);
		const changed: string[] = [];
		const change = (field: string, apply: () => void) => {
			apply();
			changed.push(field);
		};
		if (b.name) change('eventName', () => (event.name = { en: b.name!, de: b.name! }));
		if (b.description !== undefined)
			change('description', () => (event.description = { en: b.description!, de: b.description! }));
		if (b.dateStarted)
			change('dateStarted', () => (event.dateStarted = Date.parse(b.dateStarted!)));
		if (b.dateEndOfSale)
			change('dateEndOfSale', () => (event.dateEndOfSale = Date.parse(b.dateEndOfSale!)));
		if (b.companies)
			change(
				'companies',
				() =>
					(event.companyIds = new Set([
						event.organiserId,
						...b.companies!.map((ref) => company(app, ref).id),
					])),
			);
		event.updatedAt = app.clock.now();
		app.store.events.sort((a, c) => a.dateStarted - c.dateStarted || a.id - c.id);
		app.push.publish(event.companyIds, 'event.updated', {
			eventPointId: event.id,
			eventId: event.eventId,
			changed,
		});
		return { body: app.serialize.event(event, 'en') };
	})
	.add('POST', '/widget-orders', ({ app, body }) => {
		const b = check(
			z.object({
				company: companyRef,
				eventPoint: z.union([z.string(), z.number()]).optional(),
				tickets: z.number().int().min(1).max(20).default(1),
				at: isoTimeField,
			}),
			body ?? {},
		);
		const buyer = company(app, b.company);
		const now = app.clock.now();
		const at = stampAt(app, b.at);
		const candidates =
			b.eventPoint !== undefined
				? [adminEvent(app, String(b.eventPoint))]
				: app.store.events.filter(
						(e) => e.companyIds.has(buyer.id) && e.dateEndOfSale > now && e.available >= b.tickets,
					);
		const event = candidates.find((e) => e.available >= b.tickets);
		if (!event)
			throw new HttpError(409, { code: 'sold_out', message: 'No event with enough free places' });
		const order = recordWidgetSale(
			app.store,
			app.random,
			event,
			event.places.filter((p) => p.state === 'free').slice(0, b.tickets),
			buyer.id,
			at,
		);
		app.push.publish([buyer.id], 'order.sale', {
			orderId: order.id,
			eventPointId: event.id,
			status: 'paid',
			source: 'widget',
		});
		return { status: 201, body: app.serialize.widgetOrder(order) };
	})
	.add('POST', '/widget-orders/{id}/refund', ({ app, body }, params) => {
		const b = check(
			z.object({ at: isoTimeField, tickets: z.number().int().min(1).max(20).optional() }),
			body ?? {},
		);
		const refund = recordWidgetRefund(
			app.store,
			app.random,
			Number(params.id),
			stampAt(app, b.at),
			b.tickets,
		);
		if (!refund)
			throw new HttpError(409, {
				code: 'not_refundable',
				message: `Widget order ${params.id} is not a paid widget order`,
			});
		app.push.publish([refund.companyId], 'order.refund', {
			orderId: refund.orderId,
			refundId: refund.id,
			eventPointId: refund.eventPointId,
			status: app.store.widgetOrders.find((o) => o.id === refund.orderId)?.status ?? 'refund',
			ticketIds: refund.ticketIds,
			source: 'widget',
		});
		return { status: 201, body: app.serialize.widgetRefund(refund) };
	})
	.add('GET', '/webhooks', ({ app }) => ({
		body: app.push.subscriptions.map(({ secret, ...rest }) => ({
			...rest,
			signed: Boolean(secret),
		})),
	}))
	.add('POST', '/webhooks', ({ app, body }) => {
		const b = check(
			z.object({
				url: z.string().url(),
				secret: z.string().min(1).optional(),
				types: z.array(z.enum(NOTIFICATION_TYPES)).optional(),
				company: companyRef,
			}),
			body ?? {},
		);
		const sub = app.push.subscribe({
			url: b.url,
			secret: b.secret,
			types: b.types,
			companyId: company(app, b.company).id,
		});
		return {
			status: 201,
			body: {
				id: sub.id,
				url: sub.url,
				companyId: sub.companyId,
				types: sub.types,
				signed: Boolean(sub.secret),
			},
		};
	})
	.add('DELETE', '/webhooks', ({ app }) => {
		app.push.unsubscribeAll();
		return { body: [] };
	})
	.add('GET', '/deliveries', ({ app }) => ({
		body: app.push.deliveries.map(({ body, ...rest }) => ({ ...rest, payload: JSON.parse(body) })),
	}));

registerQuirksAdmin(router);
registerCrmAdmin(router);
registerPushAdmin(router);
registerScenarioAdmin(router);

export async function handleAdmin(
	app: ApiState,
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
): Promise<void> {
	const path = url.pathname.slice('/__sandbox'.length) || '/';
	const method = req.method ?? 'GET';
	try {
		const found = router.match(method, path);
		if (found === undefined || found === 405)
			throw new HttpError(found ?? 404, {
				code: 'not_found',
				message: `No admin route ${method} ${path}`,
			});
		const raw = await readBody(req);
		const reply: Reply = await found.route.handler(
			{ app, body: parseJson(raw), query: url.searchParams },
			found.params,
		);
		send(res, reply.status ?? 200, reply.body, reply.headers);
	} catch (error) {
		if (error instanceof HttpError) return send(res, error.status, error.body, error.headers);
		send(res, 500, { code: 'internal_error', message: (error as Error).message });
	}
}
