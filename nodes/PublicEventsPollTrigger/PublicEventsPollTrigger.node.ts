import {
	NodeConnectionTypes,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import { publicEventsApiConnection } from '../shared/credentialTests';
import { PollBudget } from './poll/budget';
import { pollCatalog, sampleCatalog } from './poll/catalog';
import { pollProperties } from './poll/pollProperties';
import { pollPanel } from './poll/startNotices';
import { getWatchableEvents } from './poll/events';
import { toItems, toRowItems, type Change } from './poll/items';
import { pollSales } from './poll/sales';
import { sampleSales } from './poll/sample';
import { rereadCredential } from '../shared/transport';
import { pollSettings } from './poll/pollSettings';
import { loadState, saveState, type PollState } from './poll/state';

/**
 * Polls under way in this process, each until its budget is spent. n8n starts each poll on
 * schedule even while the previous one of the same node still runs (a slow service, many events):
 * both would read the same state and emit the same sales. The later one steps aside; the running
 * one emits what is new. A poll still running past its budget was abandoned by n8n (its durable
 * scheduler drops what it returns) or waits on a request that hangs: the next poll takes over,
 * and the late one, finding its lock taken, returns nothing and saves nothing.
 */
const polling = new Map<string, { until: number }>();

export class PublicEventsPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Public Events Poll Trigger',
		name: 'publicEventsPollTrigger',
		icon: { light: 'file:publicEvents.svg', dark: 'file:publicEvents.dark.svg' },
		group: ['trigger'],
		// 1.1: one field per id in the items (see poll/items.ts)
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{$parameter["source"] === "catalog" ? "Catalog Changes" : "Sales and Refunds"}}',
		description:
			'Polls Public Events for sales, refunds and catalog ' +
			'changes when push notifications are not enabled',
		defaults: { name: 'Public Events Poll Trigger' },
		polling: true,
		// Read by n8n's AI workflow builder (n8n 2.x); older n8n ignores it.
		builderHint: {
			searchHint:
				'Starts a workflow on new Public Events sales and refunds (widget sales, widget ' +
				'refunds, paid orders of events) or catalog changes, by polling on a schedule; ' +
				'each sale or refund comes once. Prefer Public Events Trigger when the service ' +
				'pushes notifications to n8n; use this one when push is not enabled. Options > ' +
				'Output set to Ledger Rows gives one flat row per sale and per refund of every ' +
				'channel (key, type, channel, orderId, eventName, at, amount): upsert them into a ' +
				'Data Table or Google Sheets by key. Follow with the Public Events node to read the ' +
				'order or its event.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-public-events.publicEventsTrigger',
					relationHint: 'The push alternative: the same sale and refund items, without polling',
				},
				{
					nodeType: 'n8n-nodes-public-events.publicEvents',
					relationHint: 'Reads the order, its tickets or its event after a sale',
				},
				{
					nodeType: 'n8n-nodes-base.dataTable',
					relationHint: 'Keeps the Ledger Rows output, upserted by key',
				},
				{
					nodeType: 'n8n-nodes-base.googleSheets',
					relationHint: 'Keeps the Ledger Rows output in a sheet, appended or updated by key',
				},
			],
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'publicEventsApi', required: true, testedBy: 'publicEventsApiConnection' },
		],
		triggerPanel: pollPanel,
		properties: pollProperties,
	};

	methods = {
		loadOptions: { getWatchableEvents },
		credentialTest: { publicEventsApiConnection },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		// n8n polls with one context per activation: the credential as saved now, not then.
		await rereadCredential(this);
		const settings = pollSettings.call(this);
		const now = Date.now();
		if (this.getMode() === 'manual') {
			// A sample to build the workflow with; the cursor stays where it is.
			const sample =
				settings.source === 'catalog'
					? await sampleCatalog.call(this, settings, now)
					: await sampleSales.call(this, settings, loadState(this));
			const items = settings.rows
				? await toRowItems.call(this, sample, settings.request)
				: toItems(sample, this.getNode().typeVersion);
			return items.length ? [items] : null;
		}
		const node = this.getNode();
		const key = `${this.getWorkflow().id ?? ''}/${node.id ?? node.name}`;
		const held = polling.get(key);
		if (held && now <= held.until) return null;
		const budget = PollBudget.of(this, now);
		const lock = { until: now + budget.budgetMs };
		polling.set(key, lock);
		try {
			const saved = loadState(this);
			const { changes, state, error }: { changes: Change[]; state?: PollState; error?: Error } =
				settings.source === 'catalog'
					? await pollCatalog.call(this, settings, saved, now)
					: await pollSales.call(this, settings, saved, budget);
			// Rows before the state is saved: event names that cannot be read leave eventName null (the
			// log says why); anything else that fails here fails the poll, and the next one emits them.
			const items =
				settings.rows && changes.length
					? await toRowItems.call(this, changes, settings.request)
					: toItems(changes, this.getNode().typeVersion);
			// Taken over (this poll outlasted its budget): the poll that took over emits these.
			if (polling.get(key) !== lock) return null;
			if (state) saveState(this, state);
			// A feed that cannot be read: n8n records the failed poll (and runs the error workflow).
			if (error) throw error;
			return items.length ? [items] : null;
		} finally {
			if (polling.get(key) === lock) polling.delete(key);
		}
	}
}
