// The poll trigger's class under a short path: its own path makes an import over a line long.
import type { IDataObject } from 'n8n-workflow';

import * as poll from '../../nodes/PublicEventsPollTrigger/PublicEventsPollTrigger.node';
import { PollSession } from '../engine';
import type { SandboxClient } from '../sandbox/client';
import { credentialFor } from './publicEvents';

export const PublicEventsPollTrigger = poll.PublicEventsPollTrigger;
export type PublicEventsPollTrigger = poll.PublicEventsPollTrigger;

/** A poll trigger of Sales and Refunds, every channel, Output: Ledger Rows, on `sb`'s partner. */
export function ledgerPoll(sb: SandboxClient, options: IDataObject = {}): PollSession {
	return new PollSession({
		nodeType: new poll.PublicEventsPollTrigger(),
		type: 'CUSTOM.publicEventsPollTrigger',
		parameters: { options: { output: 'rows', ...options } },
		credentials: credentialFor(sb).store,
	});
}
