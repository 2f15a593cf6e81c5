import { PublicEventsTrigger } from '../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';
import { panelOf, visible } from '../../../harness/nodes/panel';

describe('the push trigger says how to test it', () => {
	const { description } = new PublicEventsTrigger();
	const { panel, help, hint } = panelOf(description);

	it('the panel sends a test delivery to the Test URL, not "go and create an event"', () => {
		expect(panel.header).toMatch(/test notification .* Test URL/);
		for (const text of [help.inactive, help.active]) {
			expect(text).toMatch(/Listen for test event/);
			expect(text).toMatch(/test delivery/);
			expect(text).toMatch(/never sends to the Test URL by itself/);
			expect(text).toMatch(/docs\/triggers\.md#testing-in-the-editor/);
		}
		expect(hint.inactive).toMatch(/Nothing arrives by itself at the Test URL/);
	});

	it('it says what arrives: one item per notification, with its fields', () => {
		for (const field of ['type', 'orderId', 'eventPointId', 'occurredAt', 'payload'])
			expect(help.inactive).toContain(`<code>${field}</code>`);
		expect(help.inactive).toMatch(/sale, refund, newEvent or eventUpdated/);
	});

	it('the notice above the parameters says it too', () => {
		expect(visible(description.properties, 'any')[0]).toMatch(
			/To test in the editor, click Execute step \(Listen for test event in n8n 1\.x\)/,
		);
	});
});
