import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runNode } from '../harness/engine';
import { startWan } from '../harness/net/wan';
import { credentialFor, mark, since } from '../harness/nodes/publicEvents';
import { SandboxClient } from '../harness/sandbox/client';
import { apiLedger, ledgerMismatches } from '../harness/sandbox/ledger';

/**
 * What one Reconcile Table costs, in requests and time, over a table of about 10,000 ledger rows
 * (widget sales, sales through the API, partial refunds of both), through n8n-core's engine
 * against the sandbox: the first run over an empty table (it writes the whole ledger), the second
 * over the table it made (it writes nothing). The requests are the figure that holds anywhere:
 * list pages of 100, one read per API order in the look-back. The second run is then timed again
 * over the WAN stand-in (harness/net/wan.ts, LEDGER_RTT ms round trip, 50 by default), beside the
 * loopback run as its baseline.
 */
const WIDGET = Number(process.env.LEDGER_WIDGET ?? 6000);
const API = Number(process.env.LEDGER_API ?? 2000);
const EVENTS = 20;
// tsx resolves `….node` to the node's codex file (….node.json) first: name the .ts file.
const NODE_FILE = '../nodes/PublicEvents/PublicEvents.node.ts';

function routes(log: Array<{ method: string; route: string }>): Record<string, number> {
	const out: Record<string, number> = {};
	for (const e of log) {
		const key = `${e.method} ${e.route}`;
		out[key] = (out[key] ?? 0) + 1;
	}
	return out;
}

async function main() {
	const sb = await SandboxClient.start({
		events: EVENTS,
		placesPerEvent: Math.ceil(((WIDGET + API) * 3) / EVENTS),
		privateEvents: 0,
		archivedEvents: 0,
		widgetOrders: 0,
		limits: { reservedPerAccount: 1_000_000, ticketsPerOrder: 10 },
		rateLimit: { limit: 1_000_000 },
	});
	const events = (await sb.getAll('/event-points')).map((e: IDataObject) => String(e.id));
	const t0 = performance.now();
	const widget: number[] = [];
	for (let n = 0; n < WIDGET; n++) {
		const res = await sb.admin('POST', '/widget-orders', {
			company: 'partner',
			eventPoint: events[n % events.length],
			tickets: 1 + (n % 3),
		});
		widget.push(res.body.id);
	}
	for (const id of widget.filter((_, n) => n % 6 === 0))
		await sb.admin('POST', `/widget-orders/${id}/refund`, { tickets: 1 });
	for (let n = 0; n < API; n++) {
		const count = 1 + (n % 2);
		// A sector with `count` free places (any event, any sector: the sandbox's own store).
		let places: { ids: string[]; priceCategory: string } | undefined;
		let event = '';
		for (const candidate of sb.app.store.events) {
			const free = candidate.places.filter((p) => p.state === 'free');
			const bySector = new Map<number, typeof free>();
			for (const place of free)
				bySector.set(place.sectorId, [...(bySector.get(place.sectorId) ?? []), place]);
			const sector = [...bySector.values()].find((list) => list.length >= count);
			if (!sector || !events.includes(String(candidate.id))) continue;
			event = String(candidate.id);
			places = {
				ids: sector.slice(0, count).map((p) => String(p.id)),
				priceCategory: String(sector[0].priceCategories[0].id),
			};
			break;
		}
		if (!places) throw new Error('no free places left');
		const made = await sb.send('POST', '/orders', {
			eventPoint: event,
			places: places.ids,
			priceCategory: places.priceCategory,
		});
		const paid = await sb.send('PUT', `/orders/${made.body.id}/status`, { toStatus: 'paid' });
		if (n % 4 === 0)
			await sb.send(
				'PUT',
				`/orders/${made.body.id}/tickets/${paid.body.tickets[0].ticketId}/status`,
				{
					toStatus: 'refund',
				},
			);
	}
	const truth = apiLedger(sb);
	process.stdout.write(
		`ledger: ${truth.size} rows made in ${((performance.now() - t0) / 1000).toFixed(1)} s ` +
			`(${WIDGET} widget sales, ${API} API sales, refunds of both)\n`,
	);
	const link = await startWan({
		upstreamPort: Number(new URL(sb.sandbox.baseUrl).port),
		rttMs: Number(process.env.LEDGER_RTT ?? 50),
	});
	const overWan = new URL(sb.sandbox.baseUrl);
	overWan.port = String(link.port);
	let { store } = credentialFor(sb);
	const { PublicEvents } = (await import(
		NODE_FILE
	)) as typeof import('../nodes/PublicEvents/PublicEvents.node');
	const reconcile = async (table: IDataObject[]) => {
		const before = await mark(sb);
		const started = performance.now();
		const { items, error } = await runNode({
			nodeType: new PublicEvents(),
			type: 'CUSTOM.publicEvents',
			parameters: {
				resource: 'ledger',
				operation: 'reconcile',
				lookBackDays: 30,
			} as INodeParameters,
			credentials: store,
			inputItems: table.length > 0 ? table : [{}],
		});
		if (error) throw error;
		const log = (await since(sb, before)).filter((e) => e.route !== '/token');
		return {
			rows: items.map((item) => item.json),
			seconds: (performance.now() - started) / 1000,
			requests: log.length,
			routes: routes(log),
		};
	};
	const first = await reconcile([]);
	const problems = ledgerMismatches(first.rows, truth);
	if (problems.length > 0)
		throw new Error(`the first reconcile: ${problems.slice(0, 5).join('; ')}`);
	const made = first.rows.map((row, id) => ({ id: id + 1, ...row }));
	const second = await reconcile(made);
	store = credentialFor(sb, { baseUrl: overWan.toString().replace(/\/$/, '') }).store;
	const wan = await reconcile(made);
	if (wan.rows.length > 0)
		throw new Error(`over the WAN stand-in: ${wan.rows.length} rows to write`);
	for (const [what, run] of [
		['empty table', first],
		['the table it made', second],
		[`the table it made, over the WAN stand-in (${process.env.LEDGER_RTT ?? 50} ms)`, wan],
	] as const)
		process.stdout.write(
			`reconcile over ${what}: ${run.rows.length} rows to write, ${run.requests} requests ` +
				`in ${run.seconds.toFixed(1)} s ${JSON.stringify(run.routes)}\n`,
		);
	process.stdout.write(
		`over the WAN stand-in: ${(wan.seconds / second.seconds).toFixed(1)}x the loopback time, ` +
			`${wan.requests} requests as on loopback (${second.requests})\n`,
	);
	await link.close();
	await sb.stop();
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
