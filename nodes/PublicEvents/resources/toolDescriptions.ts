import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/**
 * What an AI agent reads about each operation when the node is its tool. n8n's own text would be
 * "<action> in Public Events", which says nowhere where an ID comes from; a node that defines
 * `toolDescription` itself gets its default instead (still editable on the tool node). Each says
 * what the tool does, what it answers and where its IDs come from. Operations not named here get
 * their action and UI description.
 */
/** Every write: what its errors say about calling it again. */
const AFTER_A_WRITE =
	' If it fails: an error that begins "Refused:" or says "was NOT applied" changed nothing; one that begins "Uncertain:" may have changed the order, so get the order (or, for a hold, the event\'s orders) before calling this again.';

const AGENT_TEXT: Record<string, Record<string, string>> = {
	event: {
		getMany:
			'Search the events (sessions) on sale to this account. Answers a list of events: id (the event ID every other tool takes), eventName, dateStarted, venue, city, categories, minPrice/maxPrice and countAvailableTickets. Dates are filtered by day (YYYY-MM-DD). An event that is missing is not sold through this account.',
		get: 'Get one event by its ID (the id from the event search): its full record, with description and media.',
		getManyArchived:
			'Search past events whose sale has ended (for questions about history; they cannot be sold). Answers the same fields as the event search.',
	},
	hallPlan: {
		getPlaces:
			'List the places (seats) of one event, by the event ID from the event search. Each place: id (the place ID to hold), sectorName, rowName, placeName, availableCount (0 = sold or held: cannot be booked) and priceCategories (price category ID -> name and price). To hold places, pass their ids and one price category id that all of them offer.',
		getSectors:
			'List the sectors of one event (event ID from the event search): their ids narrow the place list to one sector.',
		getSectorPlaces:
			'List the places of one sector of an event (event ID from the event search, sector ID from the sector list). Answers the same fields as the place list.',
	},
	order: {
		create:
			"Hold places for a customer: creates an order that reserves them for some minutes. Needs the event ID (event search), the place IDs and one price category ID every place offers (both from the place list). Answers the order: id (the order ID), status reserved_to_time, totalPrice and reservedToDate (the hold deadline). Not a sale: payment is the partner's own step, after which the order has tickets. A taken place answers a conflict: pick other places. Holds count against the account's limit of reserved tickets." +
			AFTER_A_WRITE,
		get: 'Get an order by its order ID (the id answered when the hold was created): status, totalPrice, hold deadline (reservedToDate) and, once paid, its tickets with barcodes.',
		addPlace:
			'Add places to an order that is still held. Needs the order ID (from creating the hold) and place IDs with a price category ID (from the place list).' +
			AFTER_A_WRITE,
		removeTicket:
			'Remove a ticket from an order that is still held, freeing its place. Needs the order ID and a ticketId (from getting the order).' +
			AFTER_A_WRITE,
		extendHold:
			'Hold the places of an order longer. Needs the order ID (from creating the hold).' +
			AFTER_A_WRITE,
		changeStatus:
			'Change the status of an order by its order ID: "paid" reports the customer\'s payment and answers the tickets with barcodes, "expired" releases a hold at once, "refund" refunds a paid order.' +
			AFTER_A_WRITE,
		changeTicketStatus:
			'Change the status of one ticket of an order (the order ID, and a ticketId from getting the order), e.g. "refund" for one ticket of a paid order.' +
			AFTER_A_WRITE,
		getManyForEvent:
			"List this account's orders for one event (event ID from the event search), without tickets.",
	},
};

/** One `toolDescription` per option of a resource's Operation property, shown on the tool only. */
export function toolDescriptionProperties(
	resource: string,
	operationProperty: INodeProperties,
): INodeProperties[] {
	return ((operationProperty.options ?? []) as INodePropertyOptions[]).map((operation) => {
		const text =
			AGENT_TEXT[resource]?.[String(operation.value)] ??
			`${operation.action}: ${operation.description}`;
		return {
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			typeOptions: { rows: 4 },
			default: text,
			description:
				'What the AI agent reads about this tool: what it does, what it answers and where its IDs come from. The default fits the chosen operation.',
			displayOptions: {
				show: { '@tool': [true], resource: [resource], operation: [operation.value] },
			},
		};
	});
}
