import type { INodeProperties, TriggerPanelDefinition } from 'n8n-workflow';

import { PublicEventsTrigger } from '../../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';

/**
 * n8n shows triggerPanel's header and activation hint in the trigger's panel, its executionsHelp
 * under "When will this node trigger my flow?".
 */
function panelOf(description: { triggerPanel?: TriggerPanelDefinition | boolean }) {
	const panel = description.triggerPanel as TriggerPanelDefinition;
	const help = panel.executionsHelp as { active: string; inactive: string };
	const hint = panel.activationHint as { active: string; inactive: string };
	return { panel, help, hint };
}

const visible = (properties: INodeProperties[], source: string) =>
	properties
		.filter(
			(p) =>
				p.type === 'notice' &&
				(!p.displayOptions?.show?.source || p.displayOptions.show.source.includes(source)),
		)
		.map((p) => p.displayName);

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
