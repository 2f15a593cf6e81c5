// The poll trigger's class under a short path: its own path makes an import over a line long.
import * as poll from '../../nodes/PublicEventsPollTrigger/PublicEventsPollTrigger.node';

export const PublicEventsPollTrigger = poll.PublicEventsPollTrigger;
export type PublicEventsPollTrigger = poll.PublicEventsPollTrigger;
