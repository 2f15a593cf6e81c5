import { topLevelId } from '../../../../../nodes/PublicEvents/resources/order/lostAnswer';

/**
 * A 2xx whose body was cut short still ties the order to the request when the part that arrived
 * names it: the top-level `id` or `@id`, whole. A nested id, or a number cut mid-way, names
 * nothing.
 */
describe('the order a cut answer names (topLevelId)', () => {
	it.each([
		['{"id":700001,"eventPoint":1001,"status":"reserved_to_time","tick', '700001'],
		['{"id": "700001", "status"', '700001'],
		['{"@context":"/api/v2/contexts/Order","@id":"/api/v2/orders/700001","@type":"Ord', '700001'],
		['{"eventPoint":{"id":1001,"name":"x"},"status":"held","id":700002}', '700002'],
		['{"tickets":[{"id":5},{"id":6}],"id":7,', '7'],
		['{"note":"the \\"id\\": 9 is quoted","id":8}', '8'],
	])('%s -> %s', (text, id) => {
		expect(topLevelId(text)).toBe(id);
	});

	it.each([
		['{"id":7000', 'a number cut mid-way'],
		['{"id":"70000', 'a string cut mid-way'],
		['{"eventPoint":{"id":1001,"na', 'only a nested id'],
		['{"hydra:member": [{"id": 1,', 'a list, not an order'],
		['<html>{"id":5}</html>', 'not JSON'],
		['', 'nothing'],
	])('%s: none (%s)', (text) => {
		expect(topLevelId(text)).toBeUndefined();
	});
});
