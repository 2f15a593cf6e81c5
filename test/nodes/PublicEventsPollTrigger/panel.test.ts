import { PublicEventsPollTrigger } from '../../../harness/nodes/pollTrigger';
import { panelOf, visible } from '../../../harness/nodes/panel';

describe('the poll trigger says from when and how often', () => {
	const { description } = new PublicEventsPollTrigger();
	const { help, hint } = panelOf(description);

	it(
		"sales and refunds: from activation (the service's time) or " + 'Start From, at the Poll Times',
		() => {
			const [start] = visible(description.properties, 'salesAndRefunds');
			expect(start).toMatch(/starts when the workflow is published \(activated\)/);
			expect(start).toMatch(/the service's current time/);
			expect(start).toMatch(/Start From/);
			expect(start).toMatch(/Poll Times above \(every minute unless changed\)/);
		},
	);

	it('catalog changes: the first poll notes the catalog, then the Poll Times', () => {
		const [start] = visible(description.properties, 'catalog');
		expect(start).toMatch(/first poll notes every event as it is and emits nothing/);
		expect(start).toMatch(/Poll Times/);
	});

	it(
		'the panel: Fetch Test Event gives a sample; once published ' + 'it polls at the Poll Times',
		() => {
			for (const text of [help.inactive, help.active]) {
				expect(text).toMatch(/Fetch Test Event/);
				expect(text).toMatch(/Poll Times/);
			}
			expect(hint.inactive).toMatch(/from that moment on, or from Options > Start From/);
		},
	);
});
