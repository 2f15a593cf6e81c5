import type { INodeProperties, TriggerPanelDefinition } from 'n8n-workflow';

/**
 * "From when, how often" on screen. n8n puts its Poll Times parameter above the node's own, and
 * polls every minute unless it is changed.
 */
const WHEN =
	'Polling starts when the workflow is published (activated): the first poll ' +
	"reads the service's current time and emits nothing older, unless Options > " +
	'Start From names an earlier date (a backfill). Then it polls at the Poll Times ' +
	'above (every minute unless changed), and each new sale or refund comes once.';

export const startNotices: INodeProperties[] = [
	{
		displayName: WHEN,
		name: 'startNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['salesAndRefunds'] } },
	},
	{
		displayName:
			'Polling starts when the workflow is published (activated): the first poll notes every ' +
			'event as it is and emits nothing. Then it polls at the Poll Times above (every minute ' +
			'unless changed) and emits events newly open to your company and changes to events.',
		name: 'catalogStartNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { source: ['catalog'] } },
	},
];

const SAMPLE =
	"<b>While building your workflow</b>, click 'Fetch Test Event': " +
	'it returns the most recent sale or refund (or event, for Catalog ' +
	'Changes) as a sample, and changes nothing for the polls to come.';

export const pollPanel: TriggerPanelDefinition = {
	executionsHelp: {
		inactive:
			`${SAMPLE}<br /><br /><b>Once the workflow works</b>, publish ` +
			`(activate) it. ${WHEN} These executions show in the <a ` +
			`data-key="executions">executions list</a>, not in the editor.`,
		active:
			`${SAMPLE}<br /><br /><b>The workflow is published</b>: it polls at ` +
			`the Poll Times set in the parameters (every minute unless changed), ` +
			`from its activation or from Options > Start From. Executions show in ` +
			`the <a data-key="executions">executions list</a>, not in the editor.`,
	},
	activationHint: {
		inactive:
			'Once published (activated), it polls at the Poll Times set in the parameters ' +
			'(every minute unless changed), from that moment on, or from Options > Start From.',
		active:
			'Published: it polls at the Poll Times set in the ' +
			'parameters; those executions are not shown here.',
	},
};
