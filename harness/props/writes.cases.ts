import type { IDataObject } from 'n8n-workflow';

import type { Order } from '../nodes/orderFixtures';
import { credentialFor, runPublicEvents } from '../nodes/publicEvents';
import { SandboxClient } from '../sandbox/client';
import { onlyEvents } from '../sandbox/suite';

/**
 * The cases of writes.props.test.ts: what a case is, and how one is set up in the sandbox and
 * judged there.
 */

export type Op =
	| 'create'
	| 'paid'
	| 'expired'
	| 'extendHold'
	| 'addPlace'
	| 'removeTicket'
	| 'refundTicket';

export type WriteFault =
	| { kind: 'none' }
	| { kind: 'status'; status: number; count: number }
	| { kind: 'drop'; phase: 'before' | 'after' }
	| { kind: 'latency'; delayMs: number }
	| { kind: 'html' | 'malformed' | 'empty'; status: number }
	| { kind: 'mangle'; as: 'gzip' | 'html' | 'garbage' | 'truncated' }
	| { kind: 'redirect' };

export interface ReadFault {
	kind: 'status' | 'drop' | 'html' | 'malformed' | 'empty';
	status: number;
	/** Index into the operation's read routes (Create reads two). */
	route: number;
	/** 0: every matching read until the case ends. */
	count: number;
}

/** How the service gives what a read-back reads (sandbox/readBackQuirks.ts); none by default. */
export interface ReadQuirks {
	ticketPlaceIds?: 'string' | 'iri';
	/** A new order shows in its event's list this long after it was made. */
	orderListLagMs?: number;
	/** A write that succeeds answers 204 No Content. */
	emptyWriteAnswers?: boolean;
}

export interface Case {
	op: Op;
	write: WriteFault;
	reads: ReadFault[];
	/** The service answers every GET with a redirect to the same origin. */
	redirectReads: boolean;
	readQuirks?: ReadQuirks;
}

/** The node's Timeout in every case, seconds. */
export const TIMEOUT_S = 1;
/** The node's Max Wait to Confirm a Lost Answer in every case, seconds. */
export const CONFIRM_S = 2;

const ORDER = '/orders/{id}';
const EVENT_ORDERS = '/event-points/{id}/orders';

interface Prepared {
	operation: string;
	parameters: IDataObject;
	route: { method: string; path: string };
	faults: IDataObject[];
	quirks: IDataObject;
	/** Whether the sandbox holds the change (read over HTTP once faults and quirks are off). */
	applied: () => Promise<boolean>;
	/** Create: whether an order id is one this case's write made (not another's). */
	made?: (id: number) => boolean;
	/** Ends every hold the case left. */
	release: () => Promise<void>;
}

/** One sandbox for the suite; events with room for every case (paid places stay sold). */
export function writesSuite() {
	let sb: SandboxClient;
	let store: ReturnType<typeof credentialFor>['store'];
	let n = 0;
	let events: number[] = [];
	beforeAll(async () => {
		sb = await SandboxClient.start(onlyEvents(4, 400, { limits: { reservedPerAccount: 100_000 } }));
		store = credentialFor(sb).store;
		// The seed sells some events out: the cases take those with room.
		events = (await sb.getAll<{ id: number; countAvailableTickets: number }>('/event-points'))
			.filter((e) => e.countAvailableTickets >= 300)
			.map((e) => e.id);
	});
	afterAll(() => sb.stop());

	const getOrder = async (id: number) => (await sb.get<Order>(`/orders/${id}`)).body;
	const setStatus = (id: number, toStatus: string) =>
		sb.send<Order>('PUT', `/orders/${id}/status`, { toStatus });
	async function hold(eventId: number, count: number): Promise<Order> {
		const free = await sb.freePlaces(eventId, count);
		const res = await sb.send<Order>('POST', '/orders', {
			eventPoint: String(eventId),
			places: free.ids,
			priceCategory: free.priceCategory,
		});
		if (res.status !== 201) throw new Error(`hold: ${res.status} ${res.text}`);
		return await getOrder(res.body.id);
	}

	/**
	 * Sets up the case's order (without faults), and says how the sandbox shows the write applied.
	 */
	async function prepare(c: Case): Promise<Prepared> {
		const eventId = events[n++ % events.length];
		const byId = (value: string) => ({ __rl: true, mode: 'id', value });
		const orders: number[] = [];
		const newest = () => Math.max(0, ...sb.app.store.orders.keys());
		let operation: string;
		let parameters: IDataObject;
		let route: Prepared['route'];
		let applied: () => Promise<boolean>;
		let made: Prepared['made'];
		if (c.op === 'create') {
			// Another live hold of the account on the event: the search must not take it for the new one.
			orders.push((await hold(eventId, 1)).id);
			const free = await sb.freePlaces(eventId, 2);
			const last = newest();
			operation = 'create';
			parameters = {
				eventId: byId(String(eventId)),
				places: byId(free.ids.join(',')),
				priceCategory: free.priceCategory,
			};
			route = { method: 'POST', path: '/orders' };
			made = (id) => id > last;
			applied = async () => {
				const created = [...sb.app.store.orders.keys()].filter((id) => id > last);
				orders.push(...created);
				if (created.length > 1) throw new Error(`${created.length} orders created by one Create`);
				return created.length === 1;
			};
		} else {
			const held = await hold(eventId, c.op === 'removeTicket' || c.op === 'refundTicket' ? 2 : 1);
			const id = held.id;
			orders.push(id);
			const first = held.tickets![0];
			const orderId = String(id);
			switch (c.op) {
				case 'paid':
				case 'expired':
					operation = 'changeStatus';
					parameters = { orderId, toStatus: c.op };
					route = { method: 'PUT', path: '/orders/{id}/status' };
					applied = async () => (await getOrder(id)).status === c.op;
					break;
				case 'extendHold':
					operation = 'extendHold';
					parameters = { orderId, reservedMinutes: 45 };
					route = { method: 'PUT', path: '/orders/{id}/reserve' };
					applied = async () => (await getOrder(id)).reservedToDate !== held.reservedToDate;
					break;
				case 'addPlace': {
					const free = await sb.freePlaces(eventId, 1);
					operation = 'addPlace';
					parameters = { orderId, places: byId(free.ids[0]), priceCategory: free.priceCategory };
					route = { method: 'PUT', path: '/orders/{id}/add-place' };
					applied = async () =>
						(await getOrder(id)).tickets!.some((t) => String(t.placeId) === free.ids[0]);
					break;
				}
				case 'removeTicket':
					operation = 'removeTicket';
					parameters = { orderId, ticketId: String(first.ticketId) };
					route = { method: 'PUT', path: '/orders/{id}/tickets/{ticketId}/remove' };
					applied = async () =>
						!(await getOrder(id)).tickets!.some((t) => t.ticketId === first.ticketId);
					break;
				case 'refundTicket':
					if ((await setStatus(id, 'paid')).status !== 200)
						throw new Error('could not pay the order to refund a ticket of');
					operation = 'changeTicketStatus';
					parameters = { orderId, ticketId: String(first.ticketId), toStatus: 'refund' };
					route = { method: 'PUT', path: '/orders/{id}/tickets/{ticketId}/status' };
					applied = async () =>
						(await getOrder(id)).tickets!.find((t) => t.ticketId === first.ticketId)!.status ===
						'refund';
					break;
			}
		}
		const readRoutes = c.op === 'create' ? [EVENT_ORDERS, ORDER] : [ORDER];
		const at = { method: route.method, path: route.path };
		const faults: IDataObject[] = [];
		let quirks: IDataObject = {};
		const w = c.write;
		if (w.kind === 'status')
			faults.push({
				...at,
				kind: 'status',
				status: w.status,
				count: w.count,
				...(w.status === 429 ? { retryAfter: 0 } : {}),
			});
		if (w.kind === 'drop') faults.push({ ...at, kind: 'drop', phase: w.phase });
		if (w.kind === 'latency') faults.push({ ...at, kind: 'latency', delayMs: w.delayMs });
		if (w.kind === 'html' || w.kind === 'malformed' || w.kind === 'empty')
			faults.push({ ...at, kind: w.kind, status: w.status });
		if (w.kind === 'mangle') quirks = { mangleWriteAnswers: w.as, mangleWriteAnswersCount: 1 };
		if (w.kind === 'redirect') quirks = { redirectWrites: true };
		for (const r of c.reads) {
			faults.push({
				method: 'GET',
				path: readRoutes[r.route % readRoutes.length],
				kind: r.kind,
				count: r.count,
				...(r.kind === 'drop' ? {} : { status: r.status }),
				...(r.status === 429 ? { retryAfter: 0 } : {}),
			});
		}
		const release = async () => {
			for (const id of orders)
				if ((await getOrder(id)).status === 'reserved_to_time') await setStatus(id, 'expired');
		};
		return {
			operation: operation!,
			parameters: parameters!,
			route: route!,
			faults,
			quirks,
			applied: applied!,
			made,
			release,
		};
	}

	const order = (operation: string, parameters: IDataObject) =>
		runPublicEvents(store, { resource: 'order', operation, ...parameters } as never);

	return { sb: () => sb, prepare, order };
}
