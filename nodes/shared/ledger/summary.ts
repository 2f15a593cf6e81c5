import type { IDataObject } from 'n8n-workflow';

import { changeId } from '../changes';
import { isRefunded, ticketsOf, type Channel, type LedgerRow } from './rows';

/**
 * An event's sales in numbers: places sold, refunded, held and free, per price category and per
 * channel; gross, refunds and net per currency. The money and the channels' ticket counts are sums
 * of the ledger rows (so they equal a table of those rows); the price categories come from the
 * same records' tickets, the holds from the event's live orders, the free places from its hall
 * plan.
 */
export interface SummaryInput {
	eventPointId: string;
	eventName: string | null;
	rows: LedgerRow[];
	/** Widget orders and API orders read whole: their tickets. */
	orders: IDataObject[];
	/** Ticket ids widget refunds took back. */
	refundedTickets: Set<string>;
	/** Live holds of the event, read whole. */
	holds: IDataObject[];
	/** The hall plan's places; undefined: not read (free places are not counted). */
	places?: IDataObject[];
}

interface Counts {
	sold: number;
	refunded: number;
	held: number;
}
type Money = { gross: number; refunds: number; net: number };

const cents = (n: number) => Math.round(n * 100) / 100;
const categoryOf = (ticket: IDataObject) =>
	changeId(ticket.priceCategory ?? ticket.priceCategoryId) ?? 'unknown';

function countTickets(input: SummaryInput) {
	const categories = new Map<string, Counts & { free: number; name: string | null }>();
	const entry = (id: string) => {
		let found = categories.get(id);
		if (!found)
			categories.set(id, (found = { sold: 0, refunded: 0, held: 0, free: 0, name: null }));
		return found;
	};
	for (const order of input.orders) {
		const whole = String(order.status ?? '') === 'refund';
		for (const ticket of ticketsOf(order)) {
			const back =
				whole || isRefunded(ticket) || input.refundedTickets.has(String(changeId(ticket.ticketId)));
			entry(categoryOf(ticket))[back ? 'refunded' : 'sold']++;
		}
	}
	for (const hold of input.holds)
		for (const ticket of ticketsOf(hold)) entry(categoryOf(ticket)).held++;
	for (const place of input.places ?? []) {
		const free = Number(place.availableCount) > 0;
		for (const category of (place.priceCategories ?? []) as IDataObject[]) {
			const counted = entry(changeId(category.id) ?? 'unknown');
			if (typeof category.name === 'string') counted.name = category.name;
			if (free) counted.free++;
		}
	}
	return [...categories].map(([priceCategoryId, c]) => ({
		priceCategoryId,
		priceCategoryName: c.name,
		sold: c.sold,
		refunded: c.refunded,
		held: c.held,
		...(input.places ? { free: c.free } : {}),
	}));
}

function channelTotals(input: SummaryInput) {
	const byChannel = new Map<
		string,
		Counts & Money & { channel: Channel; currency: string | null }
	>();
	for (const row of input.rows) {
		const key = `${row.channel}|${row.currency ?? ''}`;
		let entry = byChannel.get(key);
		if (!entry)
			byChannel.set(
				key,
				(entry = {
					channel: row.channel,
					currency: row.currency,
					sold: 0,
					refunded: 0,
					held: 0,
					gross: 0,
					refunds: 0,
					net: 0,
				}),
			);
		const tickets = row.tickets ?? 0;
		const amount = row.amount ?? 0;
		if (row.type === 'sale') {
			entry.sold += tickets;
			entry.gross = cents(entry.gross + amount);
		} else {
			entry.sold -= tickets;
			entry.refunded += tickets;
			entry.refunds = cents(entry.refunds - amount);
		}
		entry.net = cents(entry.gross - entry.refunds);
	}
	return [...byChannel.values()];
}

export function summarize(input: SummaryInput): IDataObject {
	const channels = channelTotals(input);
	const held = input.holds.reduce((n, hold) => n + ticketsOf(hold).length, 0);
	const apiEntry = channels.find((c) => c.channel === 'api');
	if (apiEntry) apiEntry.held = held;
	else if (held > 0)
		channels.push({
			channel: 'api',
			currency: null,
			sold: 0,
			refunded: 0,
			held,
			gross: 0,
			refunds: 0,
			net: 0,
		});
	const currencies = new Map<string, Money & { currency: string | null }>();
	for (const c of channels) {
		const key = c.currency ?? '';
		const total = currencies.get(key) ?? { currency: c.currency, gross: 0, refunds: 0, net: 0 };
		total.gross = cents(total.gross + c.gross);
		total.refunds = cents(total.refunds + c.refunds);
		total.net = cents(total.gross - total.refunds);
		currencies.set(key, total);
	}
	const categories = countTickets(input);
	const sum = (field: 'sold' | 'refunded') => channels.reduce((n, c) => n + c[field], 0);
	return {
		eventPointId: input.eventPointId,
		eventName: input.eventName,
		sold: sum('sold'),
		refunded: sum('refunded'),
		held,
		...(input.places
			? { free: input.places.filter((p) => Number(p.availableCount) > 0).length }
			: {}),
		money: [...currencies.values()].filter((m) => m.gross !== 0 || m.refunds !== 0),
		byChannel: channels,
		byPriceCategory: categories,
	};
}
