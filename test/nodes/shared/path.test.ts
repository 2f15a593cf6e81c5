import { path } from '../../../nodes/shared/path';

describe('every path segment is encoded, and a dot segment never built', () => {
	it(
		'path`…` encodes each value as one segment and refuses "", ' + '"." and ".." in any spelling',
		() => {
			expect(path`/orders/${'700001'}/tickets/${900001}/status`).toBe(
				'/orders/700001/tickets/900001/status',
			);
			expect(path`/event-points/${'9/../../admin?x=#'}/orders`).toBe(
				'/event-points/9%2F..%2F..%2Fadmin%3Fx%3D%23/orders',
			);
			for (const bad of ['', '.', '..', '%2e', '%2E%2e', '.%2E'])
				expect(() => path`/orders/${bad}`).toThrow(/Refused to build a request path/);
		},
	);
});
