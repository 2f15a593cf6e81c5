import { NodeOperationError, type INode } from 'n8n-workflow';

import { eventFilters } from '../../../nodes/PublicEvents/resources/event/filters';
import { eventLocator, placeLocator } from '../../../nodes/shared/commonFields';
import { idField, Inputs, iriCollections } from '../../../nodes/shared/inputs';

const node: INode = {
	id: '1',
	name: 'Public Events',
	type: 'publicEvents',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const inputs = new Inputs(node, 3);
// ID fields as their definitions declare them (idField): the name keys the IRI collections, the
// label the errors.
const event = eventLocator;
const places = placeLocator;
const cities = (eventFilters.options as Array<{ name: string; displayName: string }>).find(
	(field) => field.name === 'cityIds',
)!;

function failure(run: () => unknown): NodeOperationError {
	try {
		run();
	} catch (error) {
		return error as NodeOperationError;
	}
	throw new Error('expected a failure');
}

describe('ids', () => {
	it('accepts numbers, numeric strings and IRIs', () => {
		expect(inputs.id(1001, event)).toBe('1001');
		expect(inputs.id(' 42 ', event)).toBe('42');
		expect(inputs.id('/api/v2/places/123', places)).toBe('123');
		expect(inputs.id('https://x.example/api/v2/event-points/7/', event)).toBe('7');
	});

	it('names the field and the item on bad input', () => {
		const error = failure(() => inputs.id('abc', event));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/^Event: expected a numeric ID/);
		expect(error.message).toContain('"abc"');
		expect(error.context.itemIndex).toBe(3);
		expect(failure(() => inputs.id(-1, event)).message).toMatch(/^Event:/);
		expect(failure(() => inputs.id('', event)).message).toContain('got nothing');
	});

	it('takes IRIs of the collections its definition declares; plain IDs without one', () => {
		expect(iriCollections('eventId')).toEqual(['event-points', 'event-points-archived']);
		expect(failure(() => inputs.id('/api/v2/cities/5', event)).message).toContain(
			'such as /api/v2/event-points/123',
		);
		const plain = { name: 'undeclaredId', displayName: 'Undeclared' };
		expect(inputs.id('5', plain)).toBe('5');
		expect(failure(() => inputs.id('/api/v2/cities/5', plain)).message).toBe(
			'Undeclared: expected a numeric ID, got "/api/v2/cities/5"',
		);
		// One name, one resource: Inputs.id finds the collections by the name.
		expect(() => idField({ name: 'eventId', displayName: 'Event' }, ['cities'])).toThrow(/eventId/);
		expect(idField({ ...event, description: 'Another label' }, iriCollections('eventId')!)).toEqual(
			expect.objectContaining({ name: 'eventId' }),
		);
	});

	it('splits lists', () => {
		expect(inputs.ids('1, 2,3', cities)).toEqual(['1', '2', '3']);
		expect(inputs.ids([4, '/api/v2/cities/5'], cities)).toEqual(['4', '5']);
		expect(inputs.ids(undefined, cities)).toEqual([]);
		expect(failure(() => inputs.ids('1,x', cities)).message).toMatch(/^City Names or IDs:/);
	});
});

describe('days', () => {
	it('accepts days, date-times, Dates and Luxon-like values', () => {
		expect(inputs.day('2026-12-01', 'Starts On or After')).toBe('2026-12-01');
		expect(inputs.day('2026-12-01T00:00:00', 'Starts On or After')).toBe('2026-12-01');
		expect(inputs.day('2026-12-01T10:00:00.000+02:00', 'Starts On or After')).toBe('2026-12-01');
		expect(inputs.day(new Date('2026-12-01T05:00:00Z'), 'Starts On or After')).toBe('2026-12-01');
		expect(inputs.day({ toISODate: () => '2026-12-02' }, 'Starts On or After')).toBe('2026-12-02');
	});

	it('rejects impossible and malformed days, naming the field', () => {
		expect(failure(() => inputs.day('2026-02-31', 'Starts On or After')).message).toMatch(
			/^Starts On or After: expected a date/,
		);
		expect(failure(() => inputs.day('01.12.2026', 'Starts On or Before')).message).toMatch(
			/^Starts On or Before:/,
		);
	});
});
