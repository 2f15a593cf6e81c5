import type { TriggerPanelDefinition } from 'n8n-workflow';

const DOCS =
	'https://github.com/public-events/n8n-nodes-public-events/blob/main/docs/' +
	'triggers.md#testing-in-the-editor';

/** What arrives, said once for both states of the workflow. */
const ARRIVES =
	'Each notification becomes one item: <code>type</code> (sale, refund, ' +
	'newEvent or eventUpdated), <code>orderId</code>, <code>eventPointId</code>, ' +
	'<code>occurredAt</code> and the whole <code>payload</code>.';

/**
 * n8n's waiting text for a webhook trigger says "Go to Public Events and create an event", which
 * sends nothing here: the service delivers only to a URL its staff enabled. So the panel says
 * how a test delivery reaches the Test URL.
 */
const TEST =
	`<b>To test</b>, click 'Execute step' ('Listen for test event' in n8n 1.x; the ` +
	`node then listens on its <b>Test URL</b>), then have one notification sent to ` +
	`that Test URL: ask the Public Events service for a test delivery to it, signed ` +
	`with the secret of the credential (Security). The service never sends to the Test ` +
	`URL by itself. With the demo sandbox: subscribe the Test URL and sell a ticket, ` +
	`as <a href="${DOCS}" target="_blank">Testing in the editor</a> shows. ${ARRIVES}`;

export const triggerPanel: TriggerPanelDefinition = {
	header: 'Click below, then have a test notification sent to the Test URL',
	executionsHelp: {
		inactive:
			`${TEST}<br /><br /><b>Once the workflow works</b>, publish (activate) ` +
			`it and give the <b>Production URL</b> to the service: each sale, ` +
			`refund or event change it pushes then starts an execution, listed in ` +
			`the <a data-key="executions">executions list</a>, not in the editor.`,
		active:
			`${TEST}<br /><br /><b>The workflow is published</b>: each notification the ` +
			`service pushes to the <b>Production URL</b> starts an execution, listed in ` +
			`the <a data-key="executions">executions list</a>, not in the editor.`,
	},
	activationHint: {
		inactive:
			'Nothing arrives by itself at the Test URL: ask the service for a test ' +
			'delivery to it (see When will this node trigger my flow?). Once the ' +
			'workflow works, publish it and give the service the Production URL.',
		active:
			'Notifications pushed to the Production URL also start ' +
			'this workflow (those executions are not shown here).',
	},
};
