import {
	byId,
	mark,
	query,
	routed,
	runPublicEvents,
	since,
} from '../../../../../harness/nodes/publicEvents';
import { widgetSuite } from '../../../../../harness/nodes/suites';

const { sb, credential } = widgetSuite();

const organiser = () => credential({ apiKey: sb().keys.organiser });

describe('Barcode: Export for Event', () => {
	const exportFor = (eventId: string, extra: object = {}) => ({
		resource: 'barcode',
		operation: 'exportForEvent',
		eventId: byId(eventId),
		returnAll: true,
		...extra,
	});

	it(
		'the organiser gets one item per ticket, sold or unsold, as ' + 'the service lists them',
		async () => {
			const expected = await sb().getAll('/event-points/1001/barcodes', { as: 'organiser' });
			expect(expected).toHaveLength(60);
			expect(new Set(expected.map((b) => b.sold))).toEqual(new Set([true, false]));
			const { store } = organiser();
			const { items, error } = await runPublicEvents(store, exportFor('1001'));
			expect(error).toBeUndefined();
			expect(items.map((item) => item.json)).toEqual(expected);
			expect(Object.keys(items[0].json)).toEqual(
				expect.arrayContaining(['barcode', 'placeId', 'placeName', 'sectorId', 'sectorName']),
			);
		},
	);

	it('Limit 5 from one request for 5; an IRI is read as its ID', async () => {
		const expected = await sb().getAll('/event-points/1002/barcodes', { as: 'organiser' });
		const { store } = organiser();
		const before = await mark(sb());
		const { items } = await runPublicEvents(
			store,
			exportFor('/api/v2/event-points/1002', { returnAll: false, limit: 5 }),
		);
		expect(items.map((item) => item.json.barcode)).toEqual(
			expected.slice(0, 5).map((b) => b.barcode),
		);
		const requests = routed(await since(sb(), before), '/event-points/{id}/barcodes');
		expect(requests.map((e) => `${e.path} ${query(e).get('itemsPerPage')}`)).toEqual([
			'/event-points/1002/barcodes 5',
		]);
	});

	it('an archived event can be exported by ID', async () => {
		const [archived] = await sb().getAll('/event-points-archived', { as: 'organiser' });
		const { store } = organiser();
		const { items, error } = await runPublicEvents(store, exportFor(String(archived.id)));
		expect(error).toBeUndefined();
		expect(items).toHaveLength(60);
	});

	it('a partner is told to take barcodes from the paid order', async () => {
		const { store } = credential();
		const { error, items } = await runPublicEvents(store, exportFor('1001'));
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			'The barcode export is only for events your company ' +
				'organises. For events you sell as a partner, take the ' +
				'barcodes from the paid order (Order > Get).',
		);
	});
});
