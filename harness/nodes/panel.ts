import type { INodeProperties, TriggerPanelDefinition } from 'n8n-workflow';

/**
 * n8n shows triggerPanel's header and activation hint in the trigger's panel, its executionsHelp
 * under "When will this node trigger my flow?".
 */
export function panelOf(description: { triggerPanel?: TriggerPanelDefinition | boolean }) {
	const panel = description.triggerPanel as TriggerPanelDefinition;
	const help = panel.executionsHelp as { active: string; inactive: string };
	const hint = panel.activationHint as { active: string; inactive: string };
	return { panel, help, hint };
}

/** The notices shown for `source`: those without a Source condition and those naming it. */
export const visible = (properties: INodeProperties[], source: string) =>
	properties
		.filter(
			(p) =>
				p.type === 'notice' &&
				(!p.displayOptions?.show?.source || p.displayOptions.show.source.includes(source)),
		)
		.map((p) => p.displayName);
