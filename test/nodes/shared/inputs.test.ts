import { NodeOperationError, type INode } from 'n8n-workflow';

import { Inputs } from '../../../nodes/shared/inputs';

const node: INode = {
	id: '1',
	name: 'Public Events',
	type: 'publicEvents',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const inputs = new Inputs(node, 3);
// ID fields as their definitions name them: the name keys the IRI collections, the label the
// errors.
const event = { name: 'eventId', displayName: 'Event' };
const places = { name: 'places', displayName: 'Places' };
const cities = { name: 'cityIds', displayName: 'City Names or IDs' };

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
