import { ms, table, verdict, type SummaryRow } from '../report';
import { percentile } from './buyers';
import type { BuildRun } from './run';

/** One build's headline figures. */
export function figuresOf(run: BuildRun) {
	const sales = run.answers.filter((a) => a.outcome === 'tickets');
	const count = (outcome: string) => run.answers.filter((a) => a.outcome === outcome).length;
	const latency = sales.map((a) => a.ms);
	return {
		sales: sales.length,
		ticketsAnswered: sales.reduce((n, a) => n + a.tickets, 0),
		p50: percentile(latency, 50),
		p95: percentile(latency, 95),
		p99: percentile(latency, 99),
		soldOut: count('soldOut'),
		otherAnswers: count('otherAnswer'),
		noAnswer: count('noAnswer'),
		answered: count('tickets') + count('soldOut'),
		slowest: Math.max(...run.answers.map((a) => a.ms)),
		answerP95: percentile(
			run.answers.map((a) => a.ms),
			95,
		),
	};
}

const or = (value: number, show: (v: number) => string) =>
	Number.isNaN(value) ? '-' : show(value);

const pair = (values: number[]) =>
	`${or(percentile(values, 50), ms)} / ${or(percentile(values, 95), ms)}`;

/** The per-build table: one column per build. */
export function printBuilds(runs: BuildRun[], capacity: number): void {
	const f = runs.map(figuresOf);
	const row = (label: string, cell: (r: BuildRun, i: number) => string | number) => [
		label,
		...runs.map((r, i) => String(cell(r, i))),
	];
	table(
		['figure', ...runs.map((r) => r.build.label)],
		[
			row('sales completed', (_, i) => f[i].sales),
			row('places sold / capacity', (r) => `${r.report.placesSold} / ${capacity}`),
			row('checkout p50 (sales)', (_, i) => or(f[i].p50, ms)),
			row('checkout p95 (sales)', (_, i) => or(f[i].p95, ms)),
			row('checkout p99 (sales)', (_, i) => or(f[i].p99, ms)),
			row('answer p95 (every buyer)', (_, i) => ms(f[i].answerP95)),
			row('waiting for a worker p50 / p95', (r) => pair(r.queuedMs)),
			row('run on a worker p50 / p95', (r) => pair(r.runMs)),
			row('409s met (place taken)', (r) => r.report.conflicts),
			row('422s met (account limit)', (r) => r.report.limitRefusals),
			row('absorbed by the holds made: 409s / 422 waits', (r) =>
				r.absorbed ? `${r.absorbed.conflicts} / ${r.absorbed.limitWaits}` : '-',
			),
			row('holds created / paid / released', (r) =>
				[r.report.holds.created, r.report.holds.paid, r.report.holds.released].join(' / '),
			),
			row('holds left behind', (r) => r.report.holds.leftBehind),
			row('payments for lost holds', (r) => r.report.paymentsForLostHolds),
			row(
				'buyers answered (tickets + sold out)',
				(r, i) => `${f[i].answered} / ${r.answers.length}`,
			),
			row('  sold out', (_, i) => f[i].soldOut),
			row('  other answers (an error)', (_, i) => f[i].otherAnswers),
			row('  no answer (5xx, timeout, empty)', (_, i) => f[i].noAnswer),
			row('slowest answer', (_, i) => ms(f[i].slowest)),
			row('rush length (first arrival to last answer)', (r) => `${r.seconds.toFixed(1)} s`),
		],
	);
}

/** The ratios in one run, ours first, and the invariants of ours: the summary rows. */
export function summaryRows(ours: BuildRun, fiveStep: BuildRun, http?: BuildRun): SummaryRow[] {
	const [o, five, h] = [ours, fiveStep, http].map((r) => (r ? figuresOf(r) : undefined));
	const zero = (value: number) => (value === 0 ? '0: met' : `0: MISSED`);
	const rows: SummaryRow[] = [
		['Rush: sales, package / five-step', verdict(o!.sales / five!.sales, 1.5, 'higher'), '>= 1.5'],
		['Rush: p95 checkout, package / five-step', verdict(o!.p95 / five!.p95, 0.7), '<= 0.7'],
	];
	if (h)
		rows.push(
			['Rush: sales, package / HTTP Request', (o!.sales / h.sales).toFixed(2), 'printed'],
			['Rush: p95 checkout, package / HTTP Request', (o!.p95 / h.p95).toFixed(2), 'printed'],
		);
	rows.push(
		[
			'Rush: holds left behind (package)',
			String(ours.report.holds.leftBehind),
			zero(ours.report.holds.leftBehind),
		],
		[
			'Rush: payments for lost holds (package)',
			String(ours.report.paymentsForLostHolds),
			zero(ours.report.paymentsForLostHolds),
		],
		[
			'Rush: buyers not answered (package)',
			String(ours.answers.length - o!.answered),
			zero(ours.answers.length - o!.answered),
		],
	);
	return rows;
}
