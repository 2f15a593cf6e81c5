import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { PublicEventsTrigger } from '../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import actionCodex from '../../nodes/PublicEvents/PublicEvents.node.json';
import pollCodex from '../../nodes/PublicEventsPollTrigger/PublicEventsPollTrigger.node.json';
import pushCodex from '../../nodes/PublicEventsTrigger/PublicEventsTrigger.node.json';

/**
 * What n8n's node creator shows: it searches displayName and codex.alias, shows a trigger named
 * like an action node plus "Trigger" as one entry with the trigger's description, and makes an
 * "HTTP request" entry of a credential's httpRequestNode unless that says hidden.
 */
describe('the nodes in the node creator', () => {
	it.each(['ticket', 'barcode', 'refund', 'payment', 'seat', 'hold', 'order', 'sale', 'event'])(
		'the Public Events node is found by "%s"',
		(word) => {
			expect(actionCodex.alias).toContain(word);
		},
	);

	// n8n's search is fuzzy in order: every letter typed, in order, in the name or an alias. A
	// plural is longer than its singular, so "sales" does not find an alias "sale".
	const found = (typed: string, names: string[]) =>
		names.some((name) => {
			let at = 0;
			for (const letter of name.toLowerCase()) if (letter === typed[at]) at++;
			return at === typed.length;
		});

	it.each([
		'sales',
		'orders',
		'tickets',
		'events',
		'refunds',
		'payments',
		'seats',
		'places',
		'holds',
		'barcodes',
		'reservations',
		'bookings',
	])('the Public Events node is found by the plural "%s"', (word) => {
		expect(found(word, ['Public Events', ...actionCodex.alias])).toBe(true);
	});

	it('both triggers are found by sales, orders and refunds too', () => {
		for (const codex of [pushCodex, pollCodex])
			for (const word of ['sales', 'orders', 'refunds', 'tickets'])
				expect([word, found(word, codex.alias)]).toEqual([word, true]);
	});

	it('both triggers are found by sale, refund and ticket', () => {
		for (const codex of [pushCodex, pollCodex])
			expect(codex.alias).toEqual(expect.arrayContaining(['sale', 'refund', 'ticket']));
	});

	it('the shared entry of the node and its push trigger describes both', () => {
		const shown = new PublicEventsTrigger().description.description;
		expect(shown).toMatch(/^Sell tickets/);
		expect(shown).toMatch(/sale, refund or event change/);
		expect(new PublicEvents().description.description).toMatch(/^Sell tickets/);
	});

	it(
		'the credential makes no HTTP request entry, yet the HTTP ' +
			'Request node can use it (it has authenticate)',
		() => {
			const credential = new PublicEventsApi();
			expect(credential.httpRequestNode.hidden).toBe(true);
			expect(credential.authenticate).toBeDefined();
			expect((credential as { genericAuth?: boolean }).genericAuth).toBeUndefined();
		},
	);
});
