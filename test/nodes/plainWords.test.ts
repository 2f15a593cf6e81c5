import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { PublicEventsApi } from '../../credentials/PublicEventsApi.credentials';
import { PublicEvents } from '../../nodes/PublicEvents/PublicEvents.node';
import { PublicEventsPollTrigger } from '../../harness/nodes/pollTrigger';
import { PublicEventsTrigger } from '../../nodes/PublicEventsTrigger/PublicEventsTrigger.node';

/** Every property, with the entries of its collections, depth first. */
function flatten(list: INodeProperties[]): INodeProperties[] {
	return list.flatMap((p) => [
		p,
		...(p.type === 'collection' ? flatten(p.options as INodeProperties[]) : []),
	]);
}

const action = flatten(new PublicEvents().description.properties);

describe('words a partner understands (names and values unchanged)', () => {
	it('the page window reads "Pages Read at Once", still saved as maxPagesInFlight', () => {
		const windows = action.filter((p) => p.name === 'maxPagesInFlight');
		expect(windows.length).toBeGreaterThan(0);
		for (const p of windows) expect(p.displayName).toBe('Pages Read at Once');
	});

	it('no "IRI" in what the editor shows of the three nodes', () => {
		for (const node of [
			new PublicEvents(),
			new PublicEventsTrigger(),
			new PublicEventsPollTrigger(),
		]) {
			expect(JSON.stringify(node.description.properties)).not.toMatch(/\bIRI\b/);
		}
	});

	it('no API wire names (query keys, headers, requests) in what the editor shows', () => {
		const shown = (p: INodeProperties): string[] => [
			p.displayName,
			p.description ?? '',
			p.hint ?? '',
			...((p.options ?? []) as Array<INodePropertyOptions | INodeProperties>).flatMap((o) =>
				'displayName' in o ? shown(o) : [o.name, o.description ?? ''],
			),
		];
		const texts = [new PublicEvents(), new PublicEventsTrigger(), new PublicEventsPollTrigger()]
			.flatMap((node) => node.description.properties)
			.flatMap(shown);
		const wire = /\w\[\w*\]|\bsent as\b|\bX-API-|\b(GET|POST|PUT) \//i;
		expect(texts.filter((text) => wire.test(text))).toEqual([]);
		expect(texts.length).toBeGreaterThan(300);
	});

	it('reserved_to_time is explained where orders are read and created', () => {
		const statuses = action.find((p) => p.name === 'status' && p.type === 'multiOptions')!
			.options as INodePropertyOptions[];
		expect(statuses.find((o) => o.value === 'reserved_to_time')?.description).toMatch(
			/held, waiting for payment until reservedToDate/,
		);
		for (const o of statuses) expect(o.description).toBeTruthy();
		const notices = action
			.filter((p) => p.type === 'notice' && /reserved_to_time/.test(p.displayName))
			.map((p) => p.name);
		expect(notices).toEqual(expect.arrayContaining(['statusNotice', 'holdNotice']));
	});

	it(
		'the push trigger\'s catch-all event reads "Any Other ' +
			'Notification"; its value stays other',
		() => {
			const events = new PublicEventsTrigger().description.properties.find(
				(p) => p.name === 'events',
			)!.options as INodePropertyOptions[];
			expect(events.find((o) => o.value === 'other')?.name).toBe('Any Other Notification');
			expect(events.map((o) => o.name).join()).not.toMatch(/Unrecognised/);
		},
	);

	it('Environment, Base URL and API Key each have a hint in words', () => {
		const { properties } = new PublicEventsApi();
		const environment = properties.find((p) => p.name === 'environment')!;
		expect(environment.hint).toBe(
			'The environment your key was issued for. The address goes in Base URL below.',
		);
		expect(environment.description).toMatch(/Production requires an https:\/\/ Base URL/);
		expect(properties.find((p) => p.name === 'baseUrl')!.hint).toMatch(
			/gave your company with the API key/,
		);
		expect(properties.find((p) => p.name === 'apiKey')!.hint).toMatch(
			/^The secret key the Public Events service sent your company/,
		);
	});
});
