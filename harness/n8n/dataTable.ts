/**
 * n8n's Data Tables through its REST API (what the editor's Data tables page calls), and the one
 * comparison the e2e suites make of a sales table with the sandbox: one row per order, each as the
 * API has it.
 */
import type { N8nServer } from '../../scripts/n8n/instance';
import type { SandboxClient } from '../sandbox/client';

export type Row = Record<string, string | number | null>;
export type ColumnType = 'string' | 'number' | 'boolean' | 'date';

/** A project's data tables, through whichever n8n process serves the editor now. */
export class DataTables {
	private constructor(
		private readonly server: () => N8nServer,
		private readonly cookie: string,
		readonly project: string,
	) {}

	static async of(server: () => N8nServer, cookie: string): Promise<DataTables> {
		const project = (await server().rest(cookie, 'GET', '/projects/personal')) as { id: string };
		return new DataTables(server, cookie, project.id);
	}

	private rest(method: string, path: string, body?: unknown): Promise<any> {
		return this.server().rest(
			this.cookie,
			method,
			`/projects/${this.project}/data-tables${path}`,
			body,
		);
	}

	async find(name: string): Promise<{ id: string; name: string }> {
		const { data } = (await this.rest('GET', '')) as { data: Array<{ id: string; name: string }> };
		const table = data.find((t) => t.name === name);
		if (!table) throw new Error(`no data table "${name}" (${data.map((t) => t.name).join(', ')})`);
		return table;
	}

	columns(id: string): Promise<Array<{ id: string; name: string; type: ColumnType }>> {
		return this.rest('GET', `/${id}/columns`);
	}

	/** Rows, or rows whose `column` equals `value`. */
	async count(id: string, column?: string, value?: string): Promise<number> {
		const filter = column && {
			type: 'and',
			filters: [{ columnName: column, condition: 'eq', value }],
		};
		const query = filter ? `&filter=${encodeURIComponent(JSON.stringify(filter))}` : '';
		return ((await this.rest('GET', `/${id}/rows?take=1${query}`)) as { count: number }).count;
	}

	async rows(id: string): Promise<Row[]> {
		const rows: Row[] = [];
		for (let skip = 0; ; skip += 250) {
			const page = (await this.rest('GET', `/${id}/rows?take=250&skip=${skip}`)) as {
				data: Row[];
				count: number;
			};
			rows.push(...page.data);
			if (page.data.length === 0 || rows.length >= page.count) return rows;
		}
	}

	/** Adds rows as given (n8n's own id and times are its own). */
	insert(id: string, rows: Row[]): Promise<unknown> {
		return this.rest('POST', `/${id}/insert`, { data: rows });
	}

	rename(id: string, name: string): Promise<unknown> {
		return this.rest('PATCH', `/${id}`, { name });
	}

	/** Deletes a column as the table's column menu does: its values go with it. */
	async dropColumn(id: string, name: string): Promise<void> {
		const column = (await this.columns(id)).find((c) => c.name === name);
		if (!column) throw new Error(`no column "${name}"`);
		await this.rest('DELETE', `/${id}/columns/${column.id}`);
	}

	addColumn(id: string, name: string, type: ColumnType): Promise<unknown> {
		return this.rest('POST', `/${id}/columns`, { name, type });
	}
}

const cents = (n: unknown) => (n === null || n === undefined ? null : Math.round(Number(n) * 100));
const time = (t: unknown) => (t === null || t === undefined ? null : Date.parse(String(t)));

/**
 * How a sales table differs from the sandbox's widget sales and refunds: every order of `orders`
 * (ids) once, with the sale's status, amount, time, tickets and email, and its refund's id,
 * amount, tickets and time (or none). An empty list: the table equals the API row by row.
 */
export async function tableMismatches(
	rows: Row[],
	sandbox: SandboxClient,
	orderIds: number[],
): Promise<string[]> {
	const orders = new Map((await sandbox.getAll('/widget-orders')).map((o: any) => [o.id, o]));
	const refunds = new Map(
		(await sandbox.getAll('/widget-orders-refunds')).map((r: any) => [r.order, r]),
	);
	const problems: string[] = [];
	const byOrder = new Map<number, Row[]>();
	for (const row of rows)
		byOrder.set(Number(row.orderId), [...(byOrder.get(Number(row.orderId)) ?? []), row]);
	const wanted = new Set(orderIds);
	for (const [id, found] of byOrder) {
		if (found.length > 1) problems.push(`order ${id}: ${found.length} rows`);
		if (!wanted.has(id)) problems.push(`order ${id}: in the table, not made by the test`);
	}
	for (const id of orderIds) {
		const row = byOrder.get(id)?.[0];
		if (!row) {
			problems.push(`order ${id}: no row`);
			continue;
		}
		const order = orders.get(id);
		const refund = refunds.get(id);
		const seen = {
			status: row.status,
			amount: cents(row.amount),
			paidAt: time(row.paidAt),
			tickets: row.tickets,
			email: row.email,
			refundId: row.refundId,
			refundedAmount: cents(row.refundedAmount),
			refundedTickets: row.refundedTickets,
			refundedAt: time(row.refundedAt),
		};
		const api = {
			status: order.status,
			amount: cents(order.totalPrice.amount),
			paidAt: time(order.payAt),
			tickets: order.tickets.length,
			email: order.email,
			refundId: refund ? String(refund.id) : null,
			refundedAmount: refund ? cents(refund.amount.amount) : null,
			refundedTickets: refund ? refund.tickets.length : null,
			refundedAt: refund ? time(refund.refundedAt) : null,
		};
		for (const key of Object.keys(api) as Array<keyof typeof api>)
			if (seen[key] !== api[key])
				problems.push(`order ${id}: ${key} ${String(seen[key])}, the API ${String(api[key])}`);
	}
	return problems;
}
