/**
 * The shipped example workflows (examples/*.json) in real n8n (2.40.7, or N8N_VERSION such as
 * 1.123.81), with the package installed as a community package and the files imported unchanged,
 * as users import them, and run with `n8n execute` against the
 * sandbox: what they print and the files they write are checked against the sandbox's own data.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { DateTime } from 'luxon';

import { expectNoSecrets, secretsOf } from '../../harness/secrets';
import { OWNER } from '../../harness/n8n/owner';
import { until } from '../../harness/sandbox/push';
import { SandboxClient } from '../../harness/sandbox/client';
import { apiLedger, type TruthRow } from '../../harness/sandbox/ledger';
import {
	apiCredential,
	ensureN8n,
	N8nInstance,
	n8nMajor,
	nodeOutput,
	packPackage,
	REPO_ROOT,
	type PackedPackage,
} from '../../scripts/n8n/instance';
import type { N8nInstall } from '../../scripts/n8n/install';
import {
	API_CREDENTIAL as DEMO_API,
	ORGANISER_CREDENTIAL as ORGANISER,
	WEBHOOK_CREDENTIAL,
	wireCrm,
	type Example as DemoExample,
} from '../../scripts/demo/setup';
import { signAttempt } from '../../sandbox/push';
import { CANVAS_BUTTONS } from '../examples/notes';

const IDS = {
	sale: 'PeExSellTicket01',
	saleAgain: 'PeE2eSellSecond1',
	sheet: 'PeExSalesSheet01',
	sheetCloud: 'PeExSheetCloud01',
	barcodes: 'PeExBarcodeCsv01',
	barcodesCloud: 'PeExBarcodeCloud',
	lists: 'PeExReferences01',
	listsCloud: 'PeExRefListCloud',
	crm: 'PeE2eCrmWired001',
	barcodesPartner: 'PeE2eBarcodePrt1',
};
const BARCODE = /^\d{13}$/;
/** The push secret of the CRM example's trigger here, and its webhook (fresh, not the file's). */
const CRM_SECRET = 'whsec_e2e_examples_crm_8d21f4';
const CRM_HOOK = randomUUID();

type Workflow = {
	id: string;
	name?: string;
	nodes: Array<{ name: string; type: string; [key: string]: any }>;
	connections: Record<string, any>;
};

function example(file: string): Workflow {
	return JSON.parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as Workflow;
}

/** The reference the shipped sell-a-ticket example sells under (its Sale node). */
const FIRST_SALE = 'first sale';

/**
 * Sell a ticket as a user makes the next sale: the same workflow with another reference in its
 * Sale node (here a copy under an id of its own, so the shipped file is imported unchanged).
 */
function sellAgain(): Workflow {
	const shipped = example('sell-a-ticket.json');
	const nodes = shipped.nodes.map((node) => {
		if (node.name !== 'Sale') return node;
		const [assignment] = node.parameters.assignments.assignments as Array<{ value: string }>;
		expect(assignment.value).toBe(FIRST_SALE);
		return {
			...node,
			parameters: {
				...node.parameters,
				assignments: { assignments: [{ ...assignment, value: 'second sale' }] },
			},
		};
	});
	return { ...shipped, id: IDS.saleAgain, name: `${shipped.name ?? ''} (second sale)`, nodes };
}

/** The SheetJS that n8n itself ships (2.x: @e965/xlsx, 1.x: xlsx). */
function sheetJs(install: N8nInstall): any {
	const fromN8n = createRequire(join(install.dir, 'node_modules', 'n8n', 'package.json'));
	return n8nMajor(install) >= 2 ? fromN8n('@e965/xlsx') : fromN8n('xlsx');
}

/** The first sheet of a file n8n wrote, read with n8n's own SheetJS, number formats kept. */
function firstSheet(install: N8nInstall, file: string): any {
	const book = sheetJs(install).read(readFileSync(file), {
		type: 'buffer',
		raw: file.endsWith('.csv'),
		cellNF: true,
	});
	return book.Sheets[book.SheetNames[0]];
}

/** The rows of a file n8n wrote, as text (dates in their cell's format). */
function sheetRows(install: N8nInstall, file: string): Array<Record<string, string>> {
	return sheetJs(install).utils.sheet_to_json(firstSheet(install, file), {
		raw: false,
		defval: '',
	});
}

/** The files a node's output items carry (a Deliver node of the examples with no disk). */
function filesOut(run: any, nodeName: string): Array<{ fileName: string; mimeType: string }> {
	const task = run.data.resultData.runData[nodeName].at(-1);
	return (task.data.main[0] as Array<{ binary?: Record<string, any> }>).flatMap((item) =>
		Object.values(item.binary ?? {}).map(({ fileName, mimeType }) => ({ fileName, mimeType })),
	);
}

describe('real n8n: the example workflows', () => {
	let install: N8nInstall;
	let sandbox: SandboxClient;
	let packed: PackedPackage;
	let n8n: N8nInstance;
	let files: string;
	/** The tickets the shipped sell-a-ticket example sold on its first run (Report Payment). */
	let firstSale: any[] = [];

	/** Error items the node sent to its error output (On Error: Continue (using error output)). */
	function errorOutput(run: any, nodeName: string): any[] {
		const task = run.data.resultData.runData[nodeName].at(-1);
		return (task.data?.main?.[1] ?? []).map((item: { json: unknown }) => item.json);
	}

	async function order(id: number | string): Promise<any> {
		const res = await sandbox.get(`/orders/${id}`);
		expect(res.status).toBe(200);
		return res.body;
	}

	/**
	 * The CRM example as the demo wires it (Send to CRM writes to the sandbox's stand-in CRM), under
	 * an id and a webhook of its own, so the file's own copy is imported unchanged beside it.
	 */
	function crmWired(): Workflow {
		const file = example('push-sale-to-crm.json');
		const [wired] = wireCrm(sandbox.sandbox, [file as unknown as DemoExample]).examples;
		return {
			...(wired as unknown as Workflow),
			id: IDS.crm,
			name: `${file.name ?? ''} (wired to the stand-in CRM)`,
			nodes: wired.nodes.map((n) => (n.webhookId ? { ...n, webhookId: CRM_HOOK } : n)),
		};
	}

	/** An order made through the API with `tickets` places of event 1002, paid. */
	async function paidOrder(tickets: number): Promise<any> {
		const places = await sandbox.freePlaces(1002, tickets);
		const created = await sandbox.send('POST', '/orders', {
			eventPoint: '1002',
			places: places.ids,
			priceCategory: places.priceCategory,
		});
		expect(created.status).toBe(201);
		const paid = await sandbox.send('PUT', `/orders/${created.body.id}/status`, {
			toStatus: 'paid',
		});
		expect(paid.status).toBe(200);
		return paid.body;
	}

	beforeAll(async () => {
		[install, sandbox, packed] = await Promise.all([
			ensureN8n(),
			SandboxClient.start({ placesPerEvent: 40 }),
			packPackage(),
		]);
		n8n = await N8nInstance.create({ install, packed });
		// Yesterday's widget sales and refunds, a partial one among them (the spreadsheet files).
		const yesterday = new Date(sandbox.app.clock.now() - 24 * 3_600_000).toISOString();
		for (const tickets of [3, 2]) {
			const sold = await sandbox.admin('POST', '/widget-orders', {
				company: 'partner',
				tickets,
				at: yesterday,
			});
			await sandbox.admin('POST', `/widget-orders/${sold.body.id}/refund`, {
				at: yesterday,
				...(tickets === 3 ? { tickets: 1 } : {}),
			});
		}
		// n8n's file folder (HOME is the user folder here); made by each file test that needs it, as
		// whoever runs n8n would provide it.
		files = join(n8n.userFolder, '.n8n-files');
		const { baseUrl } = sandbox.sandbox;
		await n8n.importCredentials([
			apiCredential(DEMO_API, baseUrl, sandbox.keys.partner),
			apiCredential(ORGANISER, baseUrl, sandbox.keys.organiser),
			{ ...WEBHOOK_CREDENTIAL, type: 'publicEventsWebhookApi', data: { secret: CRM_SECRET } },
		]);

		const barcodes = example('nightly-barcode-export.json');
		// What a partner who imports it with their own (partner) key runs.
		const withPartnerKey = JSON.parse(
			JSON.stringify(barcodes).replaceAll(JSON.stringify(ORGANISER), JSON.stringify(DEMO_API)),
		) as Workflow;
		const workflows = [
			{ ...withPartnerKey, id: IDS.barcodesPartner, name: `${barcodes.name ?? ''} (partner key)` },
			example('sell-a-ticket.json'),
			sellAgain(),
			example('sales-and-refunds-to-spreadsheet.json'),
			example('sales-and-refunds-to-spreadsheet-no-disk.json'),
			barcodes,
			example('nightly-barcode-export-no-disk.json'),
			example('reference-lists.json'),
			example('reference-lists-no-disk.json'),
			example('push-sale-to-crm.json'),
			crmWired(),
		];
		await n8n.importWorkflows(workflows);
	});

	afterAll(async () => {
		n8n?.cleanup();
		packed?.cleanup();
		await sandbox?.stop();
	});

	it("the examples' n8n nodes are types and versions this n8n has", () => {
		const known = JSON.parse(
			readFileSync(
				join(install.dir, 'node_modules', 'n8n-nodes-base', 'dist', 'types', 'nodes.json'),
				'utf8',
			),
		) as Array<{ name: string; version: number | number[] }>;
		const versions = new Map<string, number[]>();
		for (const d of known)
			versions.set(`n8n-nodes-base.${d.name}`, [
				...(versions.get(`n8n-nodes-base.${d.name}`) ?? []),
				...[d.version].flat(),
			]);
		const used = [
			'sell-a-ticket',
			'sales-and-refunds-to-spreadsheet',
			'sales-and-refunds-to-spreadsheet-no-disk',
			'nightly-barcode-export',
			'nightly-barcode-export-no-disk',
			'catalog-sync',
			'catalog-sync-no-disk',
			'reference-lists',
			'reference-lists-no-disk',
			'push-sale-to-crm',
		]
			.flatMap((name) => example(`${name}.json`).nodes)
			.filter((n) => n.type.startsWith('n8n-nodes-base.'));
		expect(used.length).toBeGreaterThan(10);
		for (const node of used)
			expect([
				node.type,
				node.typeVersion,
				versions.get(node.type)?.includes(node.typeVersion),
			]).toEqual([node.type, node.typeVersion, true]);
	});

	it("the buttons the examples' notes name are texts of this n8n's editor", () => {
		const assets = join(install.dir, 'node_modules', 'n8n-editor-ui', 'dist', 'assets');
		const texts = readdirSync(assets)
			.filter((f) => f.endsWith('.js'))
			.map((f) => readFileSync(join(assets, f), 'utf8'))
			.join('\n');
		for (const button of CANVAS_BUTTONS)
			expect([button, new RegExp(`[\`"]${button}[\`"]`).test(texts)]).toEqual([button, true]);
	});

	it(
		'sell a ticket: the integration order ends with sold tickets ' +
			"whose barcodes are the sandbox order's",
		async () => {
			const run = await n8n.execute(IDS.sale);

			expect(run.status).toBe('success');
			const tickets = nodeOutput(run, 'Report Payment');
			expect(tickets.length).toBeGreaterThan(0);
			expect(errorOutput(run, 'Report Payment')).toEqual([]);
			expect(run.data.resultData.runData['Release Hold']).toBeUndefined();
			const placed = nodeOutput(run, 'Get Places')[0];
			const paid = await order(tickets[0].orderId);
			expect(paid.status).toBe('paid');
			expect(tickets.map((t) => [t.orderStatus, t.status, t.placeId, t.barcode])).toEqual(
				paid.tickets.map((t: any) => ['paid', 'sold', placed.id, t.barcode]),
			);
			for (const t of tickets) expect(t.barcode).toMatch(BARCODE);
			firstSale = tickets;
		},
	);

	it(
		'sell a ticket run again with the same Sale reference: nothing sold, no order made; it ends ' +
			"at Sold Tickets with the first sale's tickets",
		async () => {
			expect(firstSale.length).toBeGreaterThan(0);
			const orders = () => [...sandbox.app.store.orders.values()];
			const before = orders().map((o) => [o.id, o.status]);
			const run = await n8n.execute(IDS.sale);

			expect(run.status).toBe('success');
			expect(run.data.resultData.lastNodeExecuted).toBe('Sold Tickets');
			expect(orders().map((o) => [o.id, o.status])).toEqual(before);
			const created = nodeOutput(run, 'Create Order');
			expect(created.map((o) => [String(o.id), o.status, o.idempotency])).toEqual([
				[String(firstSale[0].orderId), 'paid', { key: FIRST_SALE, repeated: true }],
			]);
			expect(
				nodeOutput(run, 'Sold Tickets').map((t) => [t.orderId, t.status, t.placeId, t.barcode]),
			).toEqual(firstSale.map((t) => [t.orderId, t.status, t.placeId, t.barcode]));
			for (const node of ['Report Payment', 'Release Hold'])
				expect([node, run.data.resultData.runData[node]]).toEqual([node, undefined]);
		},
	);

	it(
		'sell a ticket, the next sale (another Sale reference): when reporting the payment fails, ' +
			'the error output releases the hold at once',
		async () => {
			await sandbox.admin('POST', '/faults', {
				kind: 'status',
				status: 503,
				method: 'PUT',
				path: '/orders/{id}/status',
				count: 1,
			});
			try {
				const run = await n8n.execute(IDS.saleAgain);

				expect(run.status).toBe('success');
				const created = nodeOutput(run, 'Create Order')[0];
				expect(nodeOutput(run, 'Report Payment')).toEqual([]);
				expect(errorOutput(run, 'Report Payment')).toEqual([
					expect.objectContaining({ error: expect.stringContaining('503') }),
				]);
				expect(nodeOutput(run, 'Release Hold')).toEqual([
					expect.objectContaining({ id: created.id, status: 'expired' }),
				]);
				expect((await order(created.id)).status).toBe('expired');
				// The place is free again for the next customer.
				const places = await sandbox.getAll(`/event-points/${created.eventPoint}/places`);
				const heldPlace = nodeOutput(run, 'Get Places')[0].id;
				expect(places.find((p: any) => p.id === heldPlace).availableCount).toBeGreaterThan(0);
			} finally {
				await sandbox.admin('DELETE', '/faults');
			}
		},
	);

	it(
		'sell a ticket run again under the reference whose payment failed: it stops at New ' +
			'Reference Needed, no order made, nothing paid',
		async () => {
			const orders = () => [...sandbox.app.store.orders.values()].map((o) => [o.id, o.status]);
			const before = orders();
			const run = await n8n.executeAllowingFailure(IDS.saleAgain);

			expect(run.status).toBe('error');
			expect(run.data.resultData.lastNodeExecuted).toBe('New Reference Needed');
			expect(run.data.resultData.error?.message).toMatch(
				/Sale "second sale" ended unpaid \(order \d+ is expired\)/,
			);
			expect(orders()).toEqual(before);
			for (const node of ['Report Payment', 'Release Hold', 'Sold Tickets'])
				expect([node, run.data.resultData.runData[node]]).toEqual([node, undefined]);
		},
	);

	it(
		'nightly barcode export: one CSV per event ahead, holding ' +
			'exactly the barcodes the sandbox has for that event',
		async () => {
			mkdirSync(files, { recursive: true });
			const run = await n8n.execute(IDS.barcodes);

			expect(run.status).toBe('success');
			const events = nodeOutput(run, 'Events Ahead');
			const all = await sandbox.getAll('/event-points', { as: 'organiser' });
			// The 14-day window keeps some events, not all: the catalog starts a week ahead and runs for
			// weeks.
			expect(events.length).toBeGreaterThan(0);
			expect(events.length).toBeLessThan(all.length);
			for (const event of events) {
				const expected = (
					await sandbox.getAll(`/event-points/${event.id}/barcodes`, { as: 'organiser' })
				).map((b) => `${b.barcode} ${b.placeId} ${b.sectorName}`);
				const rows = sheetRows(install, join(files, `barcodes-${event.id}.csv`));
				expect([
					event.id,
					rows.map((r) => `${r.barcode} ${r.placeId} ${r.sectorName}`).sort(),
				]).toEqual([event.id, expected.sort()]);
				for (const r of rows) expect(r.barcode).toMatch(BARCODE);
			}
		},
	);

	it(
		'nightly barcode export with a partner key: the run fails at ' +
			'Nothing Exported, saying an organiser key is needed; no file',
		async () => {
			mkdirSync(files, { recursive: true });
			const before = new Set(readdirSync(files));
			const run = await n8n.executeAllowingFailure(IDS.barcodesPartner);

			expect(run.status).toBe('error');
			expect(run.data.resultData.lastNodeExecuted).toBe('Nothing Exported');
			const message = String(run.data.resultData.error.message);
			expect(message).toMatch(
				new RegExp(
					'^No barcode file was written: Export Barcodes answered an er' +
						'ror for each of the \\d+ events ahead',
				),
			);
			expect(message).toMatch(/403/);
			expect(message).toMatch(/organiser key/);
			expect(errorOutput(run, 'Export Barcodes').length).toBeGreaterThan(0);
			expect(readdirSync(files).filter((f) => !before.has(f))).toEqual([]);
		},
	);

	it(
		'reference lists, Run Now: each list in its own file, equal to ' + "the sandbox's list",
		async () => {
			mkdirSync(files, { recursive: true });
			const run = await n8n.execute(IDS.lists);

			expect(run.status).toBe('success');
			const lists: Array<[string, string]> = [
				['countries', '/countries'],
				['cities', '/cities'],
				['venues', '/venues'],
				['venue-halls', '/venue-halls'],
				['categories', '/categories'],
				['genres', '/genres'],
				['promo-codes', '/promocodes'],
			];
			expect(
				nodeOutput(run, 'Write List')
					.map((item) => item.fileName.split('/').at(-1))
					.sort(),
			).toEqual(lists.map(([file]) => `${file}.json`).sort());
			for (const [file, path] of lists) {
				const written = JSON.parse(readFileSync(join(files, `${file}.json`), 'utf8'));
				const list = await sandbox.getAll(path);
				expect([file, list.length > 0, written]).toEqual([file, true, list]);
			}
		},
	);

	/**
	 * The rows the spreadsheet examples should hold: yesterday's (in the workflow's zone, by the
	 * sandbox's clock) of the API's own ledger, as the sheet writes them.
	 */
	async function expectedSheet(zone: string) {
		const now = DateTime.fromMillis(sandbox.app.clock.now()).setZone(zone);
		const from = now.minus({ days: 1 }).startOf('day').toMillis();
		const to = now.startOf('day').toMillis();
		const rows = [...apiLedger(sandbox).values()].filter((r) => r.at >= from && r.at < to);
		expect(rows.some((r) => r.type === 'refund')).toBe(true);
		const events = [
			...(await sandbox.getAll('/event-points')),
			...(await sandbox.getAll('/event-points-archived')),
		];
		const nameOf = (id: unknown) =>
			events.find((e) => String(e.id) === String(id))?.eventName ?? '';
		const emailOf = (r: TruthRow) =>
			r.type === 'sale' && r.channel === 'widget'
				? (sandbox.app.store.widgetOrders.find((o) => String(o.id) === r.orderId)?.email ?? '')
				: '';
		const local = (ms: number) =>
			DateTime.fromMillis(ms).setZone(zone).toFormat('yyyy-MM-dd HH:mm');
		return rows.map((r) => [
			local(r.at),
			r.type,
			r.channel,
			r.orderId,
			r.eventPointId,
			nameOf(r.eventPointId),
			emailOf(r),
			String(r.tickets),
			String(r.cents / 100),
			r.key,
		]);
	}

	it(
		'sales and refunds to a spreadsheet file, without the files folder: the run stops at Could ' +
			'Not Write, saying which folder to ask for and that the no-disk version needs none',
		async () => {
			// The folder the file tests before wrote into, set aside while this one runs.
			const aside = `${files}.aside`;
			rmSync(aside, { recursive: true, force: true });
			if (existsSync(files)) renameSync(files, aside);
			let run: any;
			try {
				run = await n8n.executeAllowingFailure(IDS.sheet);
			} finally {
				if (existsSync(aside)) renameSync(aside, files);
			}

			expect(run.status).toBe('error');
			expect(run.data.resultData.lastNodeExecuted).toBe('Could Not Write');
			console.log(`what the partner reads: ${String(run.data.resultData.error.message)}`);
			expect(String(run.data.resultData.error.message)).toMatch(
				new RegExp(
					'^The file was not written: .+N8N_RESTRICT_FILE_ACCESS_TO.+\\.n8n-files.+' +
						'"no disk \\(n8n Cloud\\)" version',
					's',
				),
			);
		},
	);

	it(
		"sales and refunds to a spreadsheet file: one row per sale and refund of yesterday's " +
			'ledger, oldest first, the event name beside its id, refunds negative, and `at` a date ' +
			'cell in the time zone of the workflow',
		async () => {
			mkdirSync(files, { recursive: true });
			const run = await n8n.execute(IDS.sheet);

			expect(run.status).toBe('success');
			const [{ timeZone, rows: count }] = nodeOutput(run, 'Sheet With Dates');
			const file = join(files, 'sales-and-refunds.xlsx');
			const rows = sheetRows(install, file);
			const money = (n: number) => String(Math.round(n * 100) / 100);
			const got = rows.map((r) => [
				r.at,
				r.type,
				r.channel,
				r.orderId,
				r.eventPointId,
				r.eventName,
				r.email,
				r.tickets,
				money(Number(r.amount)),
				r.key,
			]);
			const expected = await expectedSheet(timeZone);
			expect(count).toBe(expected.length);
			expect([...got].sort()).toEqual([...expected].sort());
			expect(got.filter(([, , , , , name]) => name === '')).toEqual([]);
			expect(rows.map((r) => r.at)).toEqual(rows.map((r) => r.at).sort());
			// A spreadsheet date: a number in a date format, not text.
			const sheet = firstSheet(install, file);
			const at = String.fromCharCode(65 + Object.keys(rows[0]).indexOf('at'));
			for (let r = 2; r <= rows.length + 1; r++)
				expect([
					`${at}${r}`,
					sheet[`${at}${r}`].t,
					sheetJs(install).SSF.is_date(sheet[`${at}${r}`].z),
				]).toEqual([`${at}${r}`, 'n', true]);
		},
	);

	it(
		'the spreadsheet with no disk: the same file, kept by Deliver Spreadsheet (replace me); ' +
			'nothing written to disk',
		async () => {
			mkdirSync(files, { recursive: true });
			const before = readdirSync(files);
			const run = await n8n.execute(IDS.sheetCloud);

			expect(run.status).toBe('success');
			expect(filesOut(run, 'Deliver Spreadsheet (replace me)')).toEqual([
				{
					fileName: 'sales-and-refunds.xlsx',
					mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
				},
			]);
			// Yesterday in the workflow's time zone (n8n's, not the machine's UTC), as the file test.
			const [{ timeZone, rows }] = nodeOutput(run, 'Sheet With Dates');
			expect(rows).toBe((await expectedSheet(timeZone)).length);
			expect(readdirSync(files)).toEqual(before);
		},
	);

	it(
		'barcodes and reference lists with no disk: one CSV per event ahead, and the seven lists, ' +
			'kept by their Deliver node; nothing written to disk',
		async () => {
			mkdirSync(files, { recursive: true });
			const before = readdirSync(files);
			const barcodes = await n8n.execute(IDS.barcodesCloud);
			expect(barcodes.status).toBe('success');
			const events = nodeOutput(barcodes, 'Events Ahead');
			expect(events.length).toBeGreaterThan(0);
			const csvs = barcodes.data.resultData.runData['Deliver CSV (replace me)'].flatMap(
				(task: any) => task.data.main[0].map((item: any) => item.binary.data),
			);
			expect(csvs.map((b: any) => [b.fileName, b.mimeType]).sort()).toEqual(
				events.map((e) => [`barcodes-${e.id}.csv`, 'text/csv']).sort(),
			);

			const lists = await n8n.execute(IDS.listsCloud);
			expect(lists.status).toBe('success');
			expect(
				filesOut(lists, 'Deliver Files (replace me)')
					.map((f) => f.fileName)
					.sort(),
			).toEqual([
				'categories.json',
				'cities.json',
				'countries.json',
				'genres.json',
				'promo-codes.json',
				'venue-halls.json',
				'venues.json',
			]);
			expect(readdirSync(files)).toEqual(before);
		},
	);

	it(
		'push each sale to a CRM, published: a widget sale and an API sale each leave one ' +
			'complete deal in the stand-in CRM (amount, currency, barcodes, email as the API has ' +
			'them), and the widget sale delivered again still one',
		async () => {
			const server = await n8n.start();
			try {
				const cookie = await server.setupOwner(OWNER);
				await server.activateWorkflow(cookie, IDS.crm);
				const url = `${server.url}/webhook/${CRM_HOOK}/webhook`;
				const post = (body: string, headers: Record<string, string> = {}) =>
					fetch(url, {
						method: 'POST',
						headers: { 'content-type': 'application/json', ...headers },
						body,
					});
				// Published: n8n answers before the webhook is live; unsigned, it is refused once it is.
				await until(async () => (await post('{}')).status === 401, 'the webhook', 30_000, 250);
				const subscribed = await sandbox.admin('POST', '/webhooks', {
					url,
					secret: CRM_SECRET,
					types: ['order.sale'],
					company: 'partner',
				});
				expect(subscribed.status).toBe(201);

				const widget = (await sandbox.admin('POST', '/widget-orders', { tickets: 2 })).body;
				const api = await paidOrder(2);
				const deals = await until(
					async () => {
						const all = (await sandbox.admin('GET', '/crm/deals')).body as any[];
						return all.length >= 2 && all;
					},
					'a deal for each sale',
					60_000,
					250,
				);
				const listed = (await sandbox.getAll('/widget-orders')).find((o) => o.id === widget.id);
				// One deal per sale, keyed by its channel and order ID (a widget and an API order may
				// share a number).
				const deal = (channel: 'widget' | 'api', sold: any, email: string | null) => ({
					externalId: `${channel}-${String(sold.id)}`,
					source: 'public-events',
					channel,
					orderId: String(sold.id),
					status: 'paid',
					eventPointId: String(sold.eventPoint),
					closedAt: sold.payAt,
					amount: sold.totalPrice.amount,
					currency: sold.totalPrice.currency,
					email,
					barcodes: sold.tickets.map((t: any) => t.barcode),
				});
				const byId = (all: any[]) =>
					Object.fromEntries(all.map((d) => [d.externalId, [d.properties, d.writes]]));
				expect(byId(deals)).toEqual({
					[`widget-${String(widget.id)}`]: [deal('widget', listed, listed.email), 1],
					[`api-${String(api.id)}`]: [deal('api', await order(api.id), null), 1],
				});
				for (const d of deals) {
					expect(d.properties.amount).toBeGreaterThan(0);
					expect(d.properties.barcodes).toEqual([
						expect.stringMatching(BARCODE),
						expect.stringMatching(BARCODE),
					]);
				}

				// The widget sale delivered again, as a sender's new notification of it: one deal.
				const delivered = (await sandbox.admin('GET', '/deliveries')).body as any[];
				const first = delivered.find((d) => d.payload.data.orderId === widget.id).payload;
				const again = JSON.stringify({ ...first, id: `${String(first.id)}-again` });
				const res = await post(again, {
					'x-signature': signAttempt(CRM_SECRET, again, Date.now()),
				});
				expect(res.status).toBe(200);
				const rewritten = await until(
					async () => {
						const one = (await sandbox.admin('GET', `/crm/deals/widget-${widget.id}`)).body;
						return one.writes === 2 && one;
					},
					'the second write of the widget sale',
					60_000,
					250,
				);
				expect(rewritten.properties).toEqual(deal('widget', listed, listed.email));
				expect((await sandbox.admin('GET', '/crm/deals')).body).toHaveLength(2);
			} finally {
				await server.stop();
			}
		},
	);

	it('nothing n8n printed, and no file the examples wrote, holds a key or a token', () => {
		const written = ['barcodes-1001.csv', 'countries.json', 'promo-codes.json'].map((f) =>
			readFileSync(join(files, f), 'utf8'),
		);
		expectNoSecrets(
			[n8n.printedText(), ...written].join('\n'),
			secretsOf(sandbox),
			'real n8n examples',
		);
	});
});
