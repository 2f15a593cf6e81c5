import type { INodeParameters } from 'n8n-workflow';

import { credentialFor, ids, mark, runPublicEvents, since } from '../helpers/publicEvents';
import { SandboxClient } from '../helpers/sandboxClient';

/** Input is checked before any request: a bad value names its field and item, and the sandbox sees nothing. */
let sb: SandboxClient;
let store: ReturnType<typeof credentialFor>['store'];

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 6, placesPerEvent: 4 });
	({ store } = credentialFor(sb, { apiKey: sb.keys.organiser }));
	// The token first, so "no request" below means none at all, not even a token request.
	await runPublicEvents(store, { resource: 'reference', operation: 'getManyCountries', returnAll: false, limit: 1 });
});
afterAll(() => sb.stop());

const byId = (value: string) => ({ __rl: true as const, mode: 'id', value });
const barcode = { resource: 'barcode', operation: 'exportForEvent', eventId: byId('1001'), returnAll: true };
const countries = { resource: 'reference', operation: 'getManyCountries', returnAll: true };
const orders = { resource: 'widget', operation: 'getManyOrders', returnAll: true };
const refunds = { resource: 'widget', operation: 'getManyRefunds', returnAll: true };
const events = { resource: 'event', operation: 'getMany', returnAll: true };
const archived = { resource: 'event', operation: 'getManyArchived', returnAll: true };

const bad: Array<[string, INodeParameters, string, RegExp]> = [
	['Barcode: a word as the event', { ...barcode, eventId: byId('abc') }, 'Event', /expected a numeric ID .* got "abc"/],
	['Barcode: an expression that gives no event', { ...barcode, eventId: byId('={{ $json.missing }}') }, 'Event', /got nothing/],
	['Barcode: an IRI without an ID', { ...barcode, eventId: byId('/api/v2/event-points/') }, 'Event', /expected a numeric ID/],
	['Barcode: a negative number from an expression', { ...barcode, eventId: byId('={{ -5 }}') }, 'Event', /got "-5"/],
	['Barcode: Limit 0', { ...barcode, returnAll: false, limit: 0 }, 'Limit', /expected a whole number of at least 1/],
	['Reference: Limit 0', { ...countries, returnAll: false, limit: '={{ 0 }}' }, 'Limit', /expected a whole number of at least 1/],
	['Reference: Limit 2.5', { ...countries, operation: 'getManyVenues', returnAll: false, limit: 2.5 }, 'Limit', /whole number/],
	['Reference: a language name instead of its code', { ...countries, options: { language: 'English' } }, 'Language', /expected a language code such as en or pt-BR, got "English"/],
	['Reference: a negative Max Retry Wait', { ...countries, options: { maxRetryWait: -1 } }, 'Max Retry Wait (Seconds)', /at least 0/],
	['Widget: Limit 0', { ...orders, returnAll: false, limit: 0 }, 'Limit', /whole number/],
	['Widget: a day in another format', { ...orders, filters: { after: '31/12/2026' } }, 'Paid After', /expected a date or date-time/],
	['Widget: a day that does not exist', { ...orders, filters: { after: '2026-02-30' } }, 'Paid After', /expected a date/],
	['Widget: an hour that does not exist', { ...orders, filters: { after: '2026-02-10T25:00:00' } }, 'Paid After', /expected a date or date-time/],
	['Widget: a word as the refund date', { ...refunds, filters: { after: 'yesterday' } }, 'Refunded After', /got "yesterday"/],
	['Widget: an unknown sort', { ...orders, options: { sort: '={{ "sideways" }}' } }, 'Sort by Paid Time', /expected "asc" or "desc"/],
	['Event: a country name instead of its ID', { ...events, filters: { countryIds: ['Germany'] } }, 'Country Names or IDs', /got "Germany"/],
	['Event: one bad ID in a comma list of countries', { ...events, filters: { countryIds: '={{ "1, x" }}' } }, 'Country Names or IDs', /got " x"/],
	['Event Archived: a bad country ID', { ...archived, filters: { countryIds: ['-1'] } }, 'Country Names or IDs', /got "-1"/],
	['Event: a bad city ID', { ...events, filters: { cityIds: ['Berlin'] } }, 'City Names or IDs', /got "Berlin"/],
	['Event: a bad hall ID', { ...events, filters: { venueHallId: 'hall' } }, 'Venue Hall Name or ID', /got "hall"/],
	['Event: month 13', { ...events, filters: { dateStartedAfter: '2026-13-01' } }, 'Starts On or After', /expected a date/],
	['Event: Limit 0 with a country', { ...events, returnAll: false, limit: 0, filters: { countryIds: ['1'] } }, 'Limit', /whole number/],
];

describe('bad input fails before any request, naming the field and the item', () => {
	it.each(bad)('%s', async (_, parameters, field, problem) => {
		const before = await mark(sb);
		const { items, error } = await runPublicEvents(store, parameters);
		expect(items).toEqual([]);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message.startsWith(`${field}: `)).toBe(true);
		expect(error?.message).toMatch(problem);
		expect(error?.description).toBe(`Fix the "${field}" parameter of item 0.`);
		expect(await since(sb, before)).toEqual([]);
	});

	it('the third of three items is bad: items 0 and 1 are sent, the error names item 2', async () => {
		const before = await mark(sb);
		const { error } = await runPublicEvents(
			store,
			{ ...barcode, eventId: byId('={{ $json.ref }}'), returnAll: false, limit: 1 },
			{ inputItems: [{ ref: '1001' }, { ref: '1002' }, { ref: 'x1' }] },
		);
		expect(error?.message).toBe('Event: expected a numeric ID (or an IRI such as /api/v2/event-points/123), got "x1"');
		expect(error?.description).toBe('Fix the "Event" parameter of item 2.');
		expect((await since(sb, before)).map((e) => e.path)).toEqual(['/event-points/1001/barcodes', '/event-points/1002/barcodes']);
	});

	it('with continueOnFail the bad item becomes an error item and the next one runs', async () => {
		const before = await mark(sb);
		const { items, error } = await runPublicEvents(
			store,
			{ ...orders, filters: { after: '={{ $json.after }}' } },
			{ inputItems: [{ after: 'last week' }, { after: '2000-01-01' }], onError: 'continueRegularOutput' },
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({
			error: 'Paid After: expected a date or date-time such as 2026-12-31T18:00:00Z, got "last week"',
			description: 'Fix the "Paid After" parameter of item 0.',
		});
		expect(items.slice(1).length).toBeGreaterThan(0);
		expect(items.slice(1).every((item) => JSON.stringify(item.pairedItem) === '{"item":1}' && item.json.error === undefined)).toBe(true);
		expect((await since(sb, before)).map((e) => e.route)).toEqual(['/widget-orders']);
	});
});

describe('what is accepted', () => {
	it('IRIs, numbers from expressions and numeric strings become plain numeric IDs on the wire', async () => {
		const before = await mark(sb);
		const { error } = await runPublicEvents(store, {
			...events,
			filters: {
				cityIds: ['/api/v2/cities/11', '={{ 12 }}'],
				countryIds: ['/api/v2/countries/1'],
				venueHallId: '/api/v2/venue-halls/1001/',
			},
		});
		expect(error).toBeUndefined();
		const [request] = await since(sb, before);
		const query = new URLSearchParams(request.query);
		expect(query.getAll('city.id[]')).toEqual(['11', '12']);
		expect(query.get('venueHall.id')).toBe('1001');
		const exported = await runPublicEvents(store, { ...barcode, eventId: byId('={{ 1002 }}'), returnAll: false, limit: 1 });
		expect(exported.error).toBeUndefined();
		expect((await since(sb, before)).map((e) => e.path)).toEqual(['/event-points', '/event-points/1002/barcodes']);
	});

	it.each([
		['2026-01-31', '2026-01-31'],
		['2026-01-31T18:30:00', '2026-01-31T18:30:00'],
		['2026-01-31 18:30+02:00', '2026-01-31T18:30+02:00'],
		['2026-01-31T18:30:00.250Z', '2026-01-31T18:30:00.250Z'],
	])('Paid After %s is sent as %s', async (given, sent) => {
		const before = await mark(sb);
		const { error } = await runPublicEvents(store, { ...orders, filters: { after: given } });
		expect(error).toBeUndefined();
		const [request] = await since(sb, before);
		expect(new URLSearchParams(request.query).get('payAt[after]')).toBe(sent);
	});

	it('the events a country ID from an expression selects are those of that country', async () => {
		const all = await sb.getAll('/event-points', { as: 'organiser' });
		const country = all[0].country.id;
		const { items } = await runPublicEvents(store, { ...events, filters: { countryIds: `={{ "${country}" }}` } });
		expect(ids(items)).toEqual(all.filter((e) => e.country.id === country).map((e) => String(e.id)));
	});
});
