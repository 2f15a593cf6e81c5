import {
	ANSWERS,
	paymentStandIn,
	pickPlacesNode,
	shopWorkflow,
	stepByStepEdges,
	webhookNode,
	type ShopBuild,
	type ShopNode,
} from './shop';

export const HTTP_REQUEST_PATH = 'shop-http-request';

/**
 * The five-step shop from n8n's HTTP Request node (4.2), as its docs teach calling an API: the
 * place list paged with "Update a Parameter in Each Request" until an empty page, then the same
 * picker, POST /orders, the payment, PUT status paid; a failure after the hold PUTs it expired.
 * `token`: fetched once by the bench and put in the Authorization header, so no run spends a
 * request on it (a kinder setting than any credential gives this build).
 */
export function httpRequestShop(apiUrl: string, token: string): ShopBuild {
	const request = (name: string, parameters: object, extra: Partial<ShopNode> = {}): ShopNode => ({
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${token}` }] },
			...parameters,
		},
		...extra,
	});
	const status = (name: string, toStatus: string, extra: Partial<ShopNode> = {}) =>
		request(
			name,
			{
				method: 'PUT',
				url: `=${apiUrl}/orders/{{ $('Create Order').first().json.id }}/status`,
				sendBody: true,
				specifyBody: 'json',
				jsonBody: JSON.stringify({ toStatus }),
				options: {},
			},
			extra,
		);
	const payment = paymentStandIn();
	const nodes = [
		webhookNode(HTTP_REQUEST_PATH),
		request('Get Places', {
			url: `=${apiUrl}/event-points/{{ $json.body.eventId }}/places`,
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'itemsPerPage', value: '100' }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: {
							parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }],
						},
						paginationCompleteWhen: 'responseIsEmpty',
					},
				},
			},
		}),
		pickPlacesNode(),
		request(
			'Create Order',
			{
				method: 'POST',
				url: `${apiUrl}/orders`,
				sendBody: true,
				specifyBody: 'json',
				jsonBody:
					"={{ JSON.stringify({ eventPoint: String($('Webhook').first().json.body.eventId), " +
					'places: $json.places, priceCategory: $json.priceCategory, reservedMinutes: 15 }) }}',
				options: {},
			},
			{ onError: 'continueErrorOutput' },
		),
		payment,
		status('Report Payment', 'paid', { onError: 'continueErrorOutput' }),
		status('Release Hold', 'expired'),
		...Object.values(ANSWERS),
	];
	return {
		label: 'HTTP Request build',
		path: HTTP_REQUEST_PATH,
		workflow: shopWorkflow(
			'PeRushHttpReq001',
			'rush: HTTP Request shop',
			nodes,
			stepByStepEdges(payment.name),
		),
	};
}
