import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { credentialFor, ids, mark, runPublicEvents, since } from '../nodes/publicEvents';
import type { SandboxClient } from '../sandbox/client';
import type { Fault, Target } from './matrix';
import {
	attemptsAt,
	errorOf,
	injectFault,
	withOptions,
	withSandbox,
	type Observation,
	type Row,
} from './observe';

/** Rows of the Public Events node, run through n8n-core against a sandbox of their own. */

const byId = (value: string | number) => ({ __rl: true, mode: 'id', value: String(value) });
/** On sale, linked to the partner, 40 places (sandbox seed). */
const EVENT = 1002;

/** Injects the fault, runs the node once, returns its output and the requests it made. */
async function runCell(sb: SandboxClient, fault: Fault, target: Target, parameters: IDataObject) {
	const { store } = credentialFor(sb);
	await injectFault(sb, fault, target);
	const before = await mark(sb);
	const result = await runPublicEvents(
		store,
		withOptions(fault, new PublicEvents().description, parameters) as INodeParameters,
	);
	const log = await since(sb, before);
	return { result, log, ...attemptsAt(log, target) };
}

/** A list read: every id of the fault-free read, in its order. */
async function readCell(
	sb: SandboxClient,
	fault: Fault,
	target: Target,
	parameters: IDataObject,
	truth: string[],
): Promise<Observation> {
	const { result, attempts, refreshed } = await runCell(sb, fault, target, parameters);
	return {
		emitted: ids(result.items),
		truth,
		ordered: true,
		error: errorOf(result.error),
		attempts,
		refreshed,
	};
}

/**
 * A write: sent through the node, then counted by the sandbox (`appliedIds`: what it holds as
 * done, read in-process once every request it received has run its course).
 */
async function writeCell(
	sb: SandboxClient,
	fault: Fault,
	target: Target,
	parameters: IDataObject,
	appliedIds: () => string[],
): Promise<Observation> {
	const { result, log, attempts, refreshed } = await runCell(sb, fault, target, parameters);
	await sb.app.idle(); // a slow write runs to its end after the node gave up: count its final state
	const truth = appliedIds();
	const firstWrite = attempts[0]?.seq ?? Infinity;
	return {
		emitted: ids(result.items),
		truth,
		error: errorOf(result.error),
		attempts,
		refreshed,
		write: {
			// A request the fault answered in place of the API never reached it.
			reached: attempts.filter((e) => !e.fault || e.fault === 'drop-after' || e.fault === 'latency')
				.length,
			applied: truth.length,
			readBacks: log.filter((e) => e.method === 'GET' && e.seq > firstWrite).length,
			writeCheck: result.items[0]?.json.writeCheck as IDataObject | undefined,
		},
	};
}

const PAGE_2 = { page: '2' };

export const nodeRows: Row[] = [
	{
		id: 'events',
		label: 'list: events',
		title:
			'Event > Get Many, Return All: 250 events, 3 pages; the total ' +
			'is known, so pages 2 and 3 are read at once; the fault meets ' +
			'page 2',
		run: (fault) =>
			withSandbox({ events: 250, placesPerEvent: 1 }, async (sb) => {
				const truth = (await sb.getAll('/event-points')).map((e) => String(e.id));
				await sb.admin('PUT', '/config', { envelope: 'hydra' });
				return await readCell(
					sb,
					fault,
					{ method: 'GET', path: '/event-points', query: PAGE_2 },
					{ resource: 'event', operation: 'getMany', returnAll: true },
					truth,
				);
			}),
	},
	{
		id: 'places',
		label: 'list: hall plan',
		title:
			'Hall Plan > Get Places, Return All: 250 places, 3 pages read ' +
			'one after the other; the fault meets page 2',
		run: (fault) =>
			withSandbox({ events: 2, placesPerEvent: 10, bigEventPlaces: 250 }, async (sb) => {
				const truth = (await sb.getAll('/event-points/1001/places')).map((p) => String(p.id));
				const target = { method: 'GET', path: '/event-points/1001/places', query: PAGE_2 };
				return await readCell(
					sb,
					fault,
					target,
					{ resource: 'hallPlan', operation: 'getPlaces', eventId: byId(1001), returnAll: true },
					truth,
				);
			}),
	},
	{
		id: 'orderGet',
		label: 'get: order',
		title: 'Order > Get',
		run: (fault) =>
			withSandbox({ events: 3, placesPerEvent: 40 }, async (sb) => {
				const place = await sb.freePlace(EVENT);
				const order = await sb.send('POST', '/orders', {
					eventPoint: String(EVENT),
					places: [place.id],
					priceCategory: place.priceCategory,
				});
				const id = String(order.body.id);
				return await readCell(
					sb,
					fault,
					{ method: 'GET', path: `/orders/${id}` },
					{ resource: 'order', operation: 'get', orderId: id },
					[id],
				);
			}),
	},
	{
		id: 'create',
		label: 'create order',
		title: 'Order > Create (POST /orders)',
		run: (fault) =>
			withSandbox({ events: 3, placesPerEvent: 40 }, async (sb) => {
				const place = await sb.freePlace(EVENT);
				const existing = new Set(sb.app.store.orders.keys());
				const parameters = {
					resource: 'order',
					operation: 'create',
					eventId: byId(EVENT),
					places: byId(place.id),
					priceCategory: place.priceCategory,
				};
				return await writeCell(sb, fault, { method: 'POST', path: '/orders' }, parameters, () =>
					[...sb.app.store.orders.keys()].filter((id) => !existing.has(id)).map(String),
				);
			}),
	},
	{
		id: 'status',
		label: 'status change',
		title: 'Order > Change Status > Paid (PUT /orders/{id}/status)',
		run: (fault) =>
			withSandbox({ events: 3, placesPerEvent: 40 }, async (sb) => {
				const place = await sb.freePlace(EVENT);
				const id = Number(
					(
						await sb.send('POST', '/orders', {
							eventPoint: String(EVENT),
							places: [place.id],
							priceCategory: place.priceCategory,
						})
					).body.id,
				);
				const parameters = {
					resource: 'order',
					operation: 'changeStatus',
					orderId: String(id),
					toStatus: 'paid',
				};
				return await writeCell(
					sb,
					fault,
					{ method: 'PUT', path: `/orders/${id}/status` },
					parameters,
					() => (sb.app.store.orders.get(id)?.status === 'paid' ? [String(id)] : []),
				);
			}),
	},
];
