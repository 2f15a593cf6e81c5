import type { INodeParameters, INodeProperties } from 'n8n-workflow';

import { PublicEventsPollTrigger } from '../../harness/nodes/pollTrigger';
import { pollProperties } from '../../nodes/PublicEventsPollTrigger/poll/pollProperties';
import { kindOf, type Parameter } from '../../harness/nodes/badInput';
import { newTally, report } from '../../harness/nodes/badInputRuns';
import { badValues, label } from '../../harness/nodes/badValues';
import { PollSession } from '../../harness/engine';
import { credentialFor, mark, since } from '../../harness/nodes/publicEvents';
import { SECRET } from '../../harness/sandbox/push';
import { SandboxClient } from '../../harness/sandbox/client';
import { post, Triggers } from '../../harness/nodes/webhookTrigger';

/**
 * The triggers' free inputs. Poll trigger: Start From, the Overlap Window, the chosen events and
 * the shared Options, with the wrong values of their kind, each failing the poll before any
 * request and naming the field. Push trigger: header names that cannot match refuse every
 * delivery; a Type Field or Delivery ID Header of any text is read as data, never as code.
 */
const tally = newTally();
let sb: SandboxClient;
const triggers = new Triggers(() => sb);

beforeAll(async () => {
	sb = await SandboxClient.start({ events: 2, placesPerEvent: 2, widgetOrders: 1 });
	await sb.token();
});
afterAll(async () => {
	report('triggers', tally);
	await triggers.closeAll();
	await sb.stop();
});

/** A value as the workflow holds it: text as typed, anything else from an expression. */
const asParameter = (value: unknown) =>
	typeof value === 'string' ? value : `={{ ${JSON.stringify(value)} }}`;

const options = pollProperties.find((p) => p.name === 'options')!.options as INodeProperties[];
const eventIds = pollProperties.find((p) => p.name === 'eventIds')!;
const pollParameters: Parameter[] = [
	...options.map((property) => ({
		path: ['options', property.name],
		property,
		kind: kindOf(property)!,
	})),
	{ path: ['eventIds'], property: eventIds, kind: 'someIds' as const },
].map((p) => ({
	...p,
	resource: 'pollTrigger',
	operation: 'poll',
	field: p.property.displayName,
	required: true,
}));

describe(
	'Poll Trigger: every wrong value fails the poll before any ' + 'request, naming the field',
	() => {
		it(
			'covers Start From, the Overlap Window, the language, the ' +
				'retry bounds and the chosen events',
			() => {
				expect(pollParameters.map((p) => p.path.join('.'))).toEqual(
					expect.arrayContaining([
						'eventIds',
						'options.language',
						'options.maxRetries',
						'options.maxRetryWait',
						'options.overlapMinutes',
						'options.startFrom',
					]),
				);
			},
		);

		it.each(pollParameters.map((p) => [`${p.path.join('.')} (${p.kind})`, p] as const))(
			'%s',
			async (_, parameter) => {
				// Many copies of one ID are that ID once: not a wrong value for a set of events.
				const values = badValues(parameter).filter(
					(value) => !(typeof value === 'string' && value.startsWith('1,1,')),
				);
				const base: INodeParameters =
					parameter.path[0] === 'eventIds'
						? { include: ['eventOrders'], eventScope: 'chosen' }
						: { include: ['widgetSales'] };
				const before = await mark(sb);
				const wrong: string[] = [];
				for (const value of values) {
					const [name, entry] = parameter.path;
					const parameters = entry
						? { ...base, [name]: { [entry]: asParameter(value) } }
						: { ...base, [name]: asParameter(value) };
					const poll = new PollSession({
						nodeType: new PublicEventsPollTrigger(),
						type: 'CUSTOM.publicEventsPollTrigger',
						parameters,
						credentials: credentialFor(sb).store,
					});
					const { error } = await poll.poll();
					const named =
						error?.message.startsWith(`${parameter.field}: `) &&
						(error as { description?: string }).description ===
							`Fix the "${parameter.field}" parameter.`;
					if (!named) wrong.push(`${label(value)} -> ${error ? label(error.message) : 'accepted'}`);
				}
				expect(wrong).toEqual([]);
				expect(await since(sb, before)).toEqual([]);
				tally.operations.add('pollTrigger');
				tally.parameters.add(`pollTrigger:${parameter.path.join('.')}`);
				tally.badValues += values.length;
				tally.rejectedWithZeroRequests += values.length;
			},
		);

		it(
			'what it takes: a day in the workflow time zone, an offset up ' +
				'to ±14:00, a whole hour of overlap',
			async () => {
				const before = await mark(sb);
				for (const startFrom of ['2026-01-31', '2026-01-31 18:30', '2026-01-31T18:30:00+14:00']) {
					const poll = new PollSession({
						nodeType: new PublicEventsPollTrigger(),
						type: 'CUSTOM.publicEventsPollTrigger',
						parameters: {
							include: ['widgetSales'],
							options: { startFrom, overlapMinutes: '60', language: 'pt-BR', maxRetries: '3' },
						},
						credentials: credentialFor(sb).store,
					});
					expect((await poll.poll()).error).toBeUndefined();
				}
				const routes = (await since(sb, before))
					.map((entry) => entry.route)
					.filter((route) => route !== '/token');
				expect(routes).toEqual(Array(3).fill('/widget-orders'));
			},
		);
	},
);

const DELIVERY = JSON.stringify({
	id: 'ntf_1',
	type: 'order.sale',
	occurredAt: '2026-05-04T18:22:31Z',
	data: { orderId: 7, eventPointId: 1001 },
});
const HEADER_NAMES = [
	'',
	'   ',
	'X Token',
	'X-Token\r\nX-Injected: 1',
	'X-Token:',
	'<script>',
	'😀',
	'x'.repeat(100 * 1024),
];

describe('Public Events Trigger: header names and fields of any text', () => {
	it.each([
		['Header Name', { authentication: 'headerToken' }, 'headerName'],
		['Signature Header', { authentication: 'signature' }, 'signatureHeader'],
	])(
		'a %s that no request can carry refuses every delivery (401), starts nothing, shows no secret',
		async (_, security, name) => {
			const trigger = await triggers.start({ ...security, [name]: 'X-Webhook-Token' });
			const wrong: string[] = [];
			for (const header of HEADER_NAMES) {
				trigger.configure({ parameters: { ...security, [name]: header } });
				// The secret under the default name, and as a signature: neither may pass under a name that
				// does not match.
				const answer = await post(trigger.url, DELIVERY, {
					'x-webhook-token': SECRET,
					'x-signature': SECRET,
				});
				if (answer.status !== 401 || answer.text.includes(SECRET))
					wrong.push(`${label(header)} -> ${answer.status} ${label(answer.text)}`);
			}
			expect(wrong).toEqual([]);
			expect(trigger.executions).toEqual([]);
			tally.operations.add('pushTrigger');
			tally.parameters.add(`pushTrigger:${name}`);
			tally.badValues += HEADER_NAMES.length;
			tally.rejectedWithZeroRequests += HEADER_NAMES.length;
		},
	);

	it(
		'a Type Field that walks into the prototype reads nothing ' + 'from it and changes nothing',
		async () => {
			const fields = [
				'__proto__',
				'constructor',
				'constructor.prototype',
				'__proto__.toString',
				'toString',
				'data.__proto__',
				'....',
				'x'.repeat(100 * 1024),
			];
			const trigger = await triggers.start({
				events: ['sale', 'other'],
				authentication: 'headerToken',
				options: { typeField: 'type' },
			});
			for (const [n, typeField] of fields.entries()) {
				trigger.configure({
					parameters: {
						events: ['sale', 'other'],
						authentication: 'headerToken',
						options: { typeField, deliveryIdHeader: typeField },
					},
				});
				expect(
					(
						await post(trigger.url, DELIVERY.replace('ntf_1', `ntf_${n}`), {
							'x-webhook-token': SECRET,
						})
					).status,
				).toBe(200);
			}
			expect(trigger.executions.map(([item]) => [item.json.type, item.json.sourceType])).toEqual(
				fields.map(() => ['other', null]),
			);
			expect(({} as Record<string, unknown>).type).toBeUndefined();
			expect(Object.prototype.toString.call([])).toBe('[object Array]');
		},
	);
});
