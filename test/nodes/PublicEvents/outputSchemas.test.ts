import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { allOperations } from '../../../nodes/PublicEvents/resources';
import { expectOutputSchema, readSchema, SCHEMA_DIR } from '../../../harness/engine/outputSchema';
import { credentialFor, runPublicEvents } from '../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../harness/sandbox/client';

/**
 * Every operation of the node ships an output schema (the editor's preview of its output before
 * it runs). Each is checked against what the operation really outputs from the sandbox, with its
 * default options: every item must fit, and every field it outputs must be in the schema. The
 * operations run here in one scenario; one the scenario does not run (a new one) must check its
 * own output in its test with expectOutputSchema, and this suite sees that it does.
 * `npm run schemas` writes them anew from these runs (UPDATE_SCHEMAS=1).
 */
const EVENT = '1001';
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** resource/operation pairs as the operation modules declare them. */
function operations(): string[] {
	return allOperations
		.map(({ resource, operation }) => `${resource.value}/${operation.option.value}`)
		.sort();
}

let sb: SandboxClient;
const outputs = new Map<string, IDataObject[]>();

/** Runs every operation once, in an order that gives the order operations their order. */
beforeAll(async () => {
	sb = await SandboxClient.start({
		events: 12,
		placesPerEvent: 40,
		archivedEvents: 2,
		widgetOrders: 6,
		limits: { reservedPerAccount: 100 },
	});
	const partner = credentialFor(sb).store;
	const organiser = credentialFor(sb, { apiKey: sb.keys.organiser }).store;
	const widgetSales = await sb.getAll('/widget-orders');
	await sb.admin('POST', `/widget-orders/${widgetSales[0].id}/refund`, {});

	async function run(
		key: string,
		parameters: IDataObject,
		store = partner,
	): Promise<IDataObject[]> {
		const [resource, operation] = key.split('/');
		const { items, error } = await runPublicEvents(store, {
			resource,
			operation,
			...parameters,
		} as INodeParameters);
		if (error) throw new Error(`${key}: ${error.message}`);
		const json = items.map((item) => item.json);
		outputs.set(key, [...(outputs.get(key) ?? []), ...json]);
		return json;
	}
	const all = { returnAll: true };

	await run('barcode/exportForEvent', { eventId: byId(EVENT), ...all }, organiser);
	const [event] = await run('event/getMany', all);
	await run('event/get', { eventId: byId(String(event.id)) });
	await run('event/getManyArchived', all);
	await run('hallPlan/getPlaces', { eventId: byId(EVENT), ...all });
	const [sector] = await run('hallPlan/getSectors', { eventId: byId(EVENT), ...all });
	await run('hallPlan/getSectorPlaces', {
		eventId: byId(EVENT),
		sectorId: byId(String(sector.id)),
		...all,
	});
	for (const list of ['Categories', 'Cities', 'Countries', 'Genres', 'VenueHalls', 'Venues'])
		await run(`reference/getMany${list}`, all);
	const [promo] = await run('reference/getManyPromoCodes', all);
	await run('widget/getManyOrders', all);
	await run('widget/getManyRefunds', all);

	const free = await sb.freePlaces(Number(EVENT), 3);
	const [created] = await run('order/create', {
		eventId: byId(EVENT),
		places: byId(free.ids.slice(0, 2).join(',')),
		priceCategory: free.priceCategory,
	});
	const orderId = String(created.id);
	await run('order/addPlace', {
		orderId,
		places: byId(free.ids[2]),
		priceCategory: free.priceCategory,
	});
	const [held] = await run('order/get', { orderId });
	const tickets = held.tickets as IDataObject[];
	await run('order/removeTicket', { orderId, ticketId: String(tickets[2].ticketId) });
	await run('order/extendHold', { orderId, reservedMinutes: 30 });
	await run('order/getManyForEvent', { eventId: byId(EVENT), ...all });
	await run('order/getPaymentData', { orderId });
	await run('order/changeStatus', { orderId, toStatus: 'paid' });
	await run('order/changeTicketStatus', {
		orderId,
		ticketId: String(tickets[0].ticketId),
		toStatus: 'refund',
	});
	// Fields that are null while an order is held (payAt, barcodes) or without a promo code get their
	// other type too.
	await run('order/get', { orderId });
	const more = await sb.freePlaces(Number(EVENT), 1);
	const [withCode] = await run('order/create', {
		eventId: byId(EVENT),
		places: byId(more.ids[0]),
		priceCategory: more.priceCategory,
		additionalFields: { promoCode: promo.code },
	});
	await run('order/getManyForEvent', { eventId: byId(EVENT), ...all });
	await run('order/get', { orderId: String(withCode.id) });
}, 60_000);
afterAll(() => sb.stop());

describe.each(operations())('%s', (key) => {
	it('ships an output schema that every item it outputs fits', () => {
		const [resource, operation] = key.split('/');
		const items = outputs.get(key);
		if (items !== undefined) return expectOutputSchema(resource, operation, items);
		// An operation this run does not reach (a new one) checks its items in its own test.
		const test = join(__dirname, 'resources', resource, `${operation}.test.ts`);
		const call = new RegExp(`expectOutputSchema\\(\\s*'${resource}',\\s*'${operation}',`);
		const checked = existsSync(test) && call.test(readFileSync(test, 'utf8'));
		const missing = `no expectOutputSchema('${resource}', '${operation}', …) in ${test}`;
		expect([key, checked ? 'its test checks it' : missing]).toEqual([key, 'its test checks it']);
		expect(readSchema(resource, operation)).toBeDefined();
	});
});

it('no schema file for an operation the node does not have', () => {
	const files = readdirSync(SCHEMA_DIR).flatMap((resource) =>
		readdirSync(join(SCHEMA_DIR, resource)).map((f) => `${resource}/${f.replace(/\.json$/, '')}`),
	);
	expect(files.sort()).toEqual(operations());
});
