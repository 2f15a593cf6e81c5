import type { INodeParameters } from 'n8n-workflow';

import {
	credentialFor,
	ids,
	mark,
	runPublicEvents,
	since,
} from '../../../harness/nodes/publicEvents';
import { warmSandbox } from '../../../harness/nodes/badInputRuns';
import type { SandboxClient } from '../../../harness/sandbox/client';

/**
 * Around the bad-input matrix (badInputMatrix, badInputWire, badInputTriggers): which item a bad
 * value stops, what Continue does with it, and the forms the checks take and how they go out.
 */
let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];

beforeAll(async () => {
	({ sb, store } = await warmSandbox({ events: 6, placesPerEvent: 4 }));
});
afterAll(() => sb.stop());

const byId = (value: string) => ({ __rl: true as const, mode: 'id', value });
const barcode = {
	resource: 'barcode',
	operation: 'exportForEvent',
	eventId: byId('1001'),
	returnAll: true,
};
const orders = { resource: 'widget', operation: 'getManyOrders', returnAll: true };
const events = { resource: 'event', operation: 'getMany', returnAll: true };
const sent = async (before: number) =>
	(await since(sb, before)).filter((entry) => entry.route !== '/token');

describe('which item a bad value stops', () => {
	it('the third of three items is bad: the first two are sent, the error says item 3', async () => {
		const before = await mark(sb);
		const { error } = await runPublicEvents(
			store,
			{ ...barcode, eventId: byId('={{ $json.ref }}'), returnAll: false, limit: 1 },
			{ inputItems: [{ ref: '1001' }, { ref: '1002' }, { ref: 'x1' }] },
		);
		expect(error?.message).toBe(
			'Event: expected a numeric ID (or its API address, such as ' +
				'/api/v2/event-points/123), got "x1"',
		);
		expect(error?.description).toBe('Fix the "Event" parameter of item 3.');
		expect((await sent(before)).map((e) => e.path)).toEqual([
			'/event-points/1001/barcodes',
			'/event-points/1002/barcodes',
		]);
	});

	it('with continueOnFail the bad item becomes an error item and the next one runs', async () => {
		const before = await mark(sb);
		const { items, error } = await runPublicEvents(
			store,
			{ ...orders, filters: { after: '={{ $json.after }}' } },
			{
				inputItems: [{ after: 'last week' }, { after: '2000-01-01' }],
				onError: 'continueRegularOutput',
			},
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({
			error:
				'Paid After: expected a date or date-time such as 2026-12-31T18:00:00Z, got "last week"',
			description: 'Fix the "Paid After" parameter of item 1.',
		});
		expect(items.slice(1).length).toBeGreaterThan(0);
		expect(
			items
				.slice(1)
				.every(
					(item) =>
						JSON.stringify(item.pairedItem) === '{"item":1}' && item.json.error === undefined,
				),
		).toBe(true);
		expect((await sent(before)).map((e) => e.route)).toEqual(['/widget-orders']);
	});

	it(
		'a value is quoted short, control characters escaped: an ' +
			'error never carries 100 kB or a raw line break',
		async () => {
			const { error } = await runPublicEvents(store, {
				...barcode,
				eventId: byId(`={{ "\\r\\nX-Injected: 1" + "x".repeat(102400) }}`),
			});
			expect(error?.message).toBe(
				'Event: expected a numeric ID (or its API address, such as ' +
					'/api/v2/event-points/123), got "\\u000d\\u000aX-Injected: ' +
					'1xxxxxxxxxxxxxxxxxxxxxxxxx…"',
			);
		},
	);
});

describe('what is accepted', () => {
	it(
		'IRIs of the right resource, numbers from expressions and ' +
			'numeric strings become plain numeric IDs on the wire',
		async () => {
			const before = await mark(sb);
			const { error } = await runPublicEvents(store, {
				...events,
				filters: {
					cityIds: ['/api/v2/cities/11', '={{ 12 }}', '0013'],
					countryIds: ['/api/v2/countries/1'],
					venueHallId: '/api/v2/venue-halls/1001/',
				},
			});
			expect(error).toBeUndefined();
			const [request] = await sent(before);
			const query = new URLSearchParams(request.query);
			expect(query.getAll('city.id[]')).toEqual(['11', '12', '13']);
			expect(query.get('venueHall.id')).toBe('1001');
			const exported = await runPublicEvents(store, {
				...barcode,
				eventId: byId('={{ 1002 }}'),
				returnAll: false,
				limit: 1,
			});
			expect(exported.error).toBeUndefined();
			const archived = await runPublicEvents(store, {
				...barcode,
				eventId: byId('https://x.example/api/v2/event-points-archived/1003'),
				returnAll: false,
				limit: 1,
			});
			expect(archived.error).toBeUndefined();
			expect((await sent(before)).map((e) => e.path)).toEqual([
				'/event-points',
				'/event-points/1002/barcodes',
				'/event-points/1003/barcodes',
			]);
		},
	);

	it.each([
		['2026-01-31', '2026-01-31'],
		['2026-01-31T18:30:00', '2026-01-31T18:30:00'],
		['2026-01-31 18:30+02:00', '2026-01-31T18:30+02:00'],
		['2026-01-31T18:30:00.250Z', '2026-01-31T18:30:00.250Z'],
		['2026-01-31T18:30:00-14:00', '2026-01-31T18:30:00-14:00'],
	])('Paid After %s is sent as %s', async (given, expected) => {
		const before = await mark(sb);
		const { error } = await runPublicEvents(store, { ...orders, filters: { after: given } });
		expect(error).toBeUndefined();
		const [request] = await sent(before);
		expect(new URLSearchParams(request.query).get('payAt[after]')).toBe(expected);
	});

	it(
		'true and false as text (a spreadsheet cell), numbers as ' +
			'text, a language code with spaces around it',
		async () => {
			const before = await mark(sb);
			const run = (parameters: INodeParameters) =>
				runPublicEvents(store, { ...orders, ...parameters });
			const limited = await run({
				returnAll: '={{ "false" }}',
				limit: '={{ "2" }}',
				options: { language: ' pt-BR ', maxRetries: '3', maxRetryWait: 0.5 },
			});
			expect([limited.error, limited.items.length]).toEqual([undefined, 2]);
			const split = await run({
				returnAll: false,
				limit: 1,
				options: { splitTickets: '={{ "TRUE" }}' },
			});
			expect(split.items[0]?.json).toHaveProperty('ticketId');
			const requests = await sent(before);
			expect(requests.map((entry) => new URLSearchParams(entry.query).get('itemsPerPage'))).toEqual(
				['2', '1'],
			);
		},
	);

	it('the events a country ID from an expression selects are those of that country', async () => {
		const all = await sb.getAll('/event-points', { as: 'organiser' });
		const country = all[0].country.id;
		const { items } = await runPublicEvents(store, {
			...events,
			filters: { countryIds: `={{ "${country}" }}` },
		});
		expect(ids(items)).toEqual(
			all.filter((e) => e.country.id === country).map((e) => String(e.id)),
		);
	});
});
