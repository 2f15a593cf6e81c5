import type { IPollFunctions } from 'n8n-workflow';

import { apiRequest, apiRequestAllItems, readListPage } from '../../shared/transport';
import { WIDGET_REFUNDS, WIDGET_SALES, type FeedSpec } from '../../shared/widgetFeeds';
import { recordId } from './feed';
import type { Change } from './items';
import type { PollSettings } from './pollSettings';
import { eventOrders, inParallel, toRecords } from './specs';
import type { PollState } from './state';

/**
 * Manual runs: the most recent record of the included feeds, as a sample; the state is not touched.
 */
export async function sampleSales(
	this: IPollFunctions,
	settings: PollSettings,
	saved: PollState | undefined,
): Promise<Change[]> {
	const specs: FeedSpec[] = [];
	if (settings.include.includes('widgetSales')) specs.push(WIDGET_SALES);
	if (settings.include.includes('widgetRefunds')) specs.push(WIDGET_REFUNDS);
	if (settings.include.includes('eventOrders')) {
		const ids =
			settings.eventIds ??
			saved?.events?.ids ??
			(await apiRequestAllItems.call(this, '/event-points', {}, settings.request)).map(recordId);
		specs.push(...ids.map(eventOrders));
	}
	const newest = await inParallel(specs, async (spec): Promise<Change | undefined> => {
		// Newest first when the service sorts; the node picks the newest of the page either way.
		const qs = { [`order[${spec.time}]`]: 'desc', page: 1, itemsPerPage: 10 };
		const body = await apiRequest.call(this, 'GET', spec.path, { qs }, settings.request);
		const records = toRecords(spec, readListPage(body)?.items ?? []).sort(
			(a, b) => b.time - a.time,
		);
		return records.length
			? { type: spec.type, source: spec.source, time: records[0].time, json: records[0].json }
			: undefined;
	});
	const found = newest
		.filter((change): change is Change => change !== undefined)
		.sort((a, b) => b.time - a.time);
	return found.slice(0, 1);
}
