import type { INode } from 'n8n-workflow';

import { Inputs } from '../../../../nodes/shared/inputs';
import { periodOf } from '../../../../nodes/shared/ledger/period';

/**
 * Where DST starts at midnight (America/Santiago, America/Havana) a day begins at 01:00: Yesterday
 * ends when the next day begins. (Outside review: it ended an hour early, the day's last hour went
 * to the next.)
 */
const node = {
	name: 'Public Events',
	type: 'x',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as unknown as INode;

it(
	'Yesterday (for 2026-09-05, America/Santiago) ends when the 6th begins (01:00, the clock ' +
		'jumping from midnight), not an hour before',
	() => {
		const zone = 'America/Santiago';
		const noonOn6th = Date.parse('2026-09-06T16:00:00Z');
		const { from, to } = periodOf({ period: 'yesterday' }, noonOn6th, zone, new Inputs(node));
		// 2026-09-05 00:00 -04 is 04:00Z; the 6th begins at 01:00 -03, which is 04:00Z too.
		expect({ from: new Date(from).toISOString(), to: new Date(to!).toISOString() }).toEqual({
			from: '2026-09-05T04:00:00.000Z',
			to: '2026-09-06T04:00:00.000Z',
		});
	},
);
