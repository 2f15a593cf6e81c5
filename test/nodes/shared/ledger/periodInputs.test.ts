import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { Inputs } from '../../../../nodes/shared/inputs';
import { periodOf } from '../../../../nodes/shared/ledger/period';

import {
	credentialFor,
	mark,
	runPublicEvents,
	since,
} from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';
import { onlyEvents } from '../../../../harness/sandbox/suite';

/**
 * Bad values of the ledger's parameters fail naming the field before any request: Period, Days and
 * Refunds of API Orders Paid Up To given null (an expression naming a field the item lacks), a
 * nested Channels array, a From of year 0026 (Date.UTC would read 1926). (Outside review: the nulls
 * became the defaults, the nested array passed, the year was 1926.)
 */
let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start(onlyEvents(1, 20));
});
afterAll(() => sb.stop());

const cases: Array<[string, IDataObject, string]> = [
	['Period null', { period: null }, 'Period'],
	['Days null', { period: 'lastDays', days: null }, 'Days'],
	[
		'Refunds of API Orders Paid Up To null',
		{ options: { refundLookBackDays: null } },
		'Refunds of API',
	],
	['Channels [["api"]]', { channels: [['api']] }, 'Channels'],
];

it.each(cases)(
	'Get Rows, %s: fails naming the field, before any request',
	async (_, params, field) => {
		const store = credentialFor(sb).store;
		await runPublicEvents(store, {
			resource: 'reference',
			operation: 'getManyCountries',
			returnAll: false,
			limit: 1,
		} as INodeParameters);
		const before = await mark(sb);
		const { error } = await runPublicEvents(store, {
			resource: 'ledger',
			operation: 'getRows',
			...params,
		} as INodeParameters);
		const log = await since(sb, before);
		expect({
			message: String(error?.message ?? 'no error'),
			requests: log.map((e) => e.route),
		}).toEqual({ message: expect.stringMatching(new RegExp(`^${field}`)), requests: [] });
	},
);

it('From "0026-05-01" is refused as "0026-05-01T00:00:00Z" is (a typo, not 1926)', () => {
	const node = { name: 'Public Events', parameters: {} } as unknown as INode;
	const read = (since: string) => {
		try {
			return new Date(
				periodOf({ period: 'since', since }, Date.now(), 'UTC', new Inputs(node)).from,
			)
				.toISOString()
				.slice(0, 10);
		} catch {
			return 'refused';
		}
	};
	expect(read('0026-05-01')).toBe(read('0026-05-01T00:00:00Z'));
});
