/**
 * The service a key belongs to is the Base URL's address, however written: "HTTP://127.0.0.1:port"
 * after an edit of the credential is the same service, and a repeat is a repeat (outside review:
 * a second hold).
 */
import type { IDataObject } from 'n8n-workflow';

import { byId, EVENT, orderNodeSuite } from '../../../../../../harness/nodes/orderNode';
import { credentialFor, runPublicEvents } from '../../../../../../harness/nodes/publicEvents';

const { sb, setStatus } = orderNodeSuite();

it('the same service written in other letter case keeps its keys', async () => {
	const p = {
		resource: 'order',
		operation: 'holdBestAvailable',
		eventId: byId(String(EVENT)),
		quantity: 1,
		reservedMinutes: 15,
		options: { idempotencyKey: 'case-1' },
	};
	const base = sb().sandbox.baseUrl;
	const first = await runPublicEvents(credentialFor(sb(), { baseUrl: base }).store, p as never);
	const edited = base.replace(/^http:\/\/127\.0\.0\.1/, 'HTTP://127.0.0.1');
	const again = await runPublicEvents(credentialFor(sb(), { baseUrl: edited }).store, p as never);
	const a = first.items[0].json as IDataObject,
		b = again.items[0]?.json as IDataObject;
	for (const o of [a, b]) if (o?.id) await setStatus(Number(o.id), 'expired').catch(() => {});
	expect({ edited, err: again.error?.message, sameOrder: String(b?.id) === String(a.id) }).toEqual({
		edited,
		err: undefined,
		sameOrder: true,
	});
});
