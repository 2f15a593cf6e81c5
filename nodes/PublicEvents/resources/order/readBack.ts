import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { statusText } from '../../../shared/format';
import { path } from '../../../shared/path';
import { apiError, apiRequest, type RequestSettings } from '../../../shared/transport';
import { plainId, withOrderId } from './ids';
import type { ReadBack, WriteCheck } from './writeContract';

// Reading an order back after a write whose answer was lost, in every form the API gives its IDs.

export const ticketsOf = (order: IDataObject) =>
	Array.isArray(order.tickets) ? (order.tickets as IDataObject[]) : [];

/** The plain IDs of the places an order's tickets hold (`placeId`, else `place`). */
export const placeIdsOf = (order: IDataObject): string[] =>
	ticketsOf(order)
		.map((ticket) => plainId(ticket.placeId ?? ticket.place, 'places'))
		.filter((id): id is string => id !== undefined);

export const orderIdOf = (order: IDataObject) => plainId(order.id ?? order['@id'], 'orders');

/** Whether two lists name the same places, whatever form each gives them in. */
export const samePlaces = (a: string[], b: string[]) =>
	a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** The order's state in a few fields, for the caller of a write whose outcome it reports. */
export const stateOf = (order: IDataObject): IDataObject => ({
	id: orderIdOf(order) ?? order.id,
	status: order.status,
	...(order.reservedToDate !== undefined ? { reservedToDate: order.reservedToDate } : {}),
	places: placeIdsOf(order),
});

/**
 * The order read back; an answer that is not this order is no evidence either way, so the read
 * fails.
 */
export async function readOrder(
	this: IExecuteFunctions,
	id: string,
	settings: RequestSettings,
): Promise<IDataObject> {
	const route = path`/orders/${id}`;
	const order = (await apiRequest.call(this, 'GET', route, {}, settings)) as IDataObject;
	if (orderIdOf(order) === id) return withOrderId(order);
	throw apiError(this.getNode(), {
		method: 'GET',
		path: route,
		status: 200,
		body: order,
		attempts: 1,
		waitedMs: 0,
		itemIndex: settings.itemIndex,
		reason: `GET ${route} answered something other than order ${id}`,
	});
}

/**
 * Statuses from which an order can still reach each status: a write to that status found not
 * applied while the order is in none of them cannot apply late (the service refuses it then).
 */
const REACHABLE_FROM: Record<string, string[]> = {
	paid: ['reserved_to_time', 'created'],
	expired: ['reserved_to_time', 'created'],
	refund: ['paid'],
};

/** Whether a change to `target` can still apply to an order now in `status`. */
export function canStillReach(target: string, status: unknown): boolean {
	const from = REACHABLE_FROM[target];
	return from === undefined || from.includes(String(status));
}

/**
 * A check for a write to one order (its id checked as a number): `applied` compares an order (the
 * write's own answer, or the order read back with GET /orders/{id}) with the values the node
 * checked and sent; `settled` says when the order read can no longer take the change, so a late
 * arrival of the write cannot apply it. The answer counts only when it is this order's.
 */
export function orderCheck(
	id: string,
	change: string,
	applied: (order: IDataObject, before?: IDataObject) => boolean,
	options: {
		compareWithBefore?: boolean;
		onConflict?: string;
		settled?: (order: IDataObject) => boolean;
	} = {},
): WriteCheck {
	return {
		change,
		shownBy: (answer, before) => orderIdOf(answer) === id && applied(answer, before),
		readRefusals: true,
		before: options.compareWithBefore
			? async function (settings) {
					return await readOrder.call(this, id, settings);
				}
			: undefined,
		async find(settings, before): Promise<ReadBack> {
			const order = await readOrder.call(this, id, settings);
			if (applied(order, before)) return { applied: order };
			const settled = options.settled?.(order) ?? false;
			return {
				shown:
					`the node read order ${id} back: it is unchanged, still ${statusText(order.status)}` +
					(settled ? ', and the change can no longer apply to it' : ''),
				settled,
				order: stateOf(order),
			};
		},
		checkFirst: `Check order ${id} (Order > Get) before running this again.`,
		onConflict:
			options.onConflict ?? `Read order ${id} (Order > Get) to see its status before trying again.`,
	};
}
