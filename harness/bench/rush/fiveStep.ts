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

export const FIVE_STEP_PATH = 'shop-five-step';
const NODE = 'n8n-nodes-public-events.publicEvents';

/**
 * The shop from the operations that were there before Hold Best Available, as the sell-a-ticket
 * example teaches them: Get Places (only available) -> pick places -> Create Order -> payment ->
 * Report Payment -> tickets. A failed hold answers an error; a failure after the hold releases it.
 */
export function fiveStepBuild(credential: { id: string; name: string }): ShopBuild {
	const node = (name: string, parameters: object, extra: Partial<ShopNode> = {}): ShopNode => ({
		name,
		type: NODE,
		typeVersion: 1,
		parameters,
		credentials: { publicEventsApi: credential },
		...extra,
	});
	const orderId = "={{ $('Create Order').first().json.id }}";
	const payment = paymentStandIn();
	const nodes = [
		webhookNode(FIVE_STEP_PATH),
		node(
			'Get Places',
			{
				resource: 'hallPlan',
				operation: 'getPlaces',
				eventId: { __rl: true, mode: 'id', value: '={{ $json.body.eventId }}' },
				returnAll: true,
				options: { onlyAvailable: true },
			},
			// no place left is no item: the picker still runs, and answers sold out
			{ alwaysOutputData: true },
		),
		pickPlacesNode(),
		node(
			'Create Order',
			{
				resource: 'order',
				operation: 'create',
				eventId: {
					__rl: true,
					mode: 'id',
					value: "={{ $('Webhook').first().json.body.eventId }}",
				},
				places: { __rl: true, mode: 'id', value: '={{ $json.places }}' },
				priceCategory: '={{ $json.priceCategory }}',
				reservedMinutes: 15,
				additionalFields: {},
				options: {},
			},
			{ onError: 'continueErrorOutput' },
		),
		payment,
		node(
			'Report Payment',
			{
				resource: 'order',
				operation: 'changeStatus',
				orderId,
				toStatus: 'paid',
				options: { splitTickets: false },
			},
			{ onError: 'continueErrorOutput' },
		),
		node('Release Hold', {
			resource: 'order',
			operation: 'changeStatus',
			orderId,
			toStatus: 'expired',
			options: {},
		}),
		...Object.values(ANSWERS),
	];
	return {
		label: 'five-step build',
		path: FIVE_STEP_PATH,
		workflow: shopWorkflow(
			'PeRushFiveStep01',
			'rush: five-step shop',
			nodes,
			stepByStepEdges(payment.name),
		),
	};
}
