import { ms, table, verdict, type SummaryRow } from '../report';
import { percentile, type Answer } from './buyers';
import type { BuildRun } from './run';

/** p50, p95, p99 of values */
const spread = (values: number[]) => [50, 95, 99].map((p) => percentile(values, p));

const answered = (a: Answer) => a.outcome === 'tickets' || a.outcome === 'soldOut';

/**
 * One build's headline figures. A buyer's checkout latency runs from its first click to its
 * final answer, the tries after an error and the pauses between them included.
 */
export function figuresOf(run: BuildRun) {
	const final = (outcome: string) => run.answers.filter((a) => a.outcome === outcome);
	const sales = final('tickets');
	const tries = run.answers.flatMap((a) => a.tries);
	const [p50, p95, p99] = spread(sales.map((a) => a.ms));
	const [answeredP50, answeredP95, answeredP99] = spread(
		run.answers.filter(answered).map((a) => a.ms),
	);
	return {
		sales: sales.length,
		/** sales answered while buyers were still arriving (the "within the same 60 s") */
		salesInSpread: sales.filter((a) => a.at <= run.spreadMs).length,
		ticketsAnswered: sales.reduce((n, a) => n + a.tickets, 0),
		soldOut: final('soldOut').length,
		answered: run.answers.filter(answered).length,
		/** still an error answer (`otherAnswer`) or none (`noAnswer`) after the last try */
		unanswered: run.answers.length - run.answers.filter(answered).length,
		lastAnErrorBody: final('otherAnswer').length,
		lastNoAnswer: final('noAnswer').length,
		requests: tries.length,
		errorTries: tries.filter((t) => t.outcome === 'otherAnswer').length,
		noAnswerTries: tries.filter((t) => t.outcome === 'noAnswer').length,
		triedAgain: run.answers.filter((a) => a.tries.length > 1).length,
		/** over buyers with tickets */
		p50,
		p95,
		p99,
		/** over every buyer with a final answer: tickets or a clear sold-out */
		answeredP50,
		answeredP95,
		answeredP99,
		slowest: Math.max(...run.answers.map((a) => a.ms)),
	};
}

const or = (value: number, show: (v: number) => string) =>
	Number.isNaN(value) ? '-' : show(value);

const seconds = (values: number[]) =>
	values.some(Number.isNaN) ? '-' : `${values.map((v) => (v / 1000).toFixed(1)).join(' / ')} s`;

const pair = (values: number[]) =>
	`${or(percentile(values, 50), ms)} / ${or(percentile(values, 95), ms)}`;

/** The per-build table: one column per build. */
export function printBuilds(runs: BuildRun[], capacity: number, tries: number): void {
	const f = runs.map(figuresOf);
	const row = (label: string, cell: (r: BuildRun, i: number) => string | number) => [
		label,
		...runs.map((r, i) => String(cell(r, i))),
	];
	table(
		['figure', ...runs.map((r) => r.build.label)],
		[
			row('sales (buyers with tickets)', (_, i) => f[i].sales),
			row(
				`  of them answered within the ${runs[0].spreadMs / 1000} s of arrivals`,
				(_, i) => f[i].salesInSpread,
			),
			row('places sold / capacity', (r) => `${r.report.placesSold} / ${capacity}`),
			row(
				`buyers: tickets / sold out / no answer after ${tries} tries`,
				(_, i) => `${f[i].sales} / ${f[i].soldOut} / ${f[i].unanswered}`,
			),
			row('  no answer: last try an error body / 5xx or timeout', (_, i) =>
				f[i].unanswered ? `${f[i].lastAnErrorBody} / ${f[i].lastNoAnswer}` : '-',
			),
			row('tries (requests) / buyers who tried again', (_, i) =>
				[f[i].requests, f[i].triedAgain].join(' / '),
			),
			row('  tries answered an error body / 5xx or timeout', (_, i) =>
				[f[i].errorTries, f[i].noAnswerTries].join(' / '),
			),
			row('checkout p50 / p95 / p99, buyers with tickets', (_, i) =>
				seconds([f[i].p50, f[i].p95, f[i].p99]),
			),
			row('checkout p50 / p95 / p99, every answered buyer', (_, i) =>
				seconds([f[i].answeredP50, f[i].answeredP95, f[i].answeredP99]),
			),
			row('waiting for a worker p50 / p95 (per try)', (r) => pair(r.queuedMs)),
			row('run on a worker p50 / p95 (per try)', (r) => pair(r.runMs)),
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
			row('slowest final answer', (_, i) => ms(f[i].slowest)),
			row('rush length (first arrival to last answer)', (r) => `${r.seconds.toFixed(1)} s`),
		],
	);
}

/** A few of the error answers each build gave, distinct, so a failure can be told apart. */
export function printErrors(runs: BuildRun[], shown = 3): void {
	for (const run of runs) {
		const texts = run.answers
			.flatMap((a) => a.tries)
			.filter((t) => t.outcome === 'otherAnswer' || t.outcome === 'noAnswer')
			.map((t) => `${t.status || 'no answer'} ${t.text.slice(0, 160)}`);
		const distinct = [...new Set(texts)];
		if (distinct.length === 0) continue;
		console.log(`${run.build.label}: ${texts.length} error answers, e.g.`);
		for (const text of distinct.slice(0, shown)) console.log(`  ${text}`);
	}
}

const ratio = (a: number, b: number) => (a / b).toFixed(2);

/** The ratios in one run, ours first, and the invariants of ours: the summary rows. */
export function summaryRows(ours: BuildRun, fiveStep: BuildRun, http?: BuildRun): SummaryRow[] {
	const [o, five, h] = [ours, fiveStep, http].map((r) => (r ? figuresOf(r) : undefined));
	const zero = (value: number) => (value === 0 ? '0: met' : `0: MISSED`);
	const rows: SummaryRow[] = [
		// The target counts sales "within the same 60 s": those answered while buyers arrive.
		[
			`Rush: sales within the ${ours.spreadMs / 1000} s of arrivals, package / five-step`,
			verdict(o!.salesInSpread / five!.salesInSpread, 1.5, 'higher'),
			'>= 1.5',
		],
		[
			'Rush: p95 checkout (buyers with tickets), package / five-step',
			verdict(o!.p95 / five!.p95, 0.7),
			'<= 0.7',
		],
		['Rush: sales in all, package / five-step', ratio(o!.sales, five!.sales), 'printed'],
		[
			'Rush: p95 checkout (every answered buyer), package / five-step',
			ratio(o!.answeredP95, five!.answeredP95),
			'printed',
		],
	];
	if (h)
		rows.push(
			['Rush: sales, package / HTTP Request', ratio(o!.sales, h.sales), 'printed'],
			[
				'Rush: p95 checkout (buyers with tickets), package / HTTP Request',
				ratio(o!.p95, h.p95),
				'printed',
			],
			[
				'Rush: p95 checkout (every answered buyer), package / HTTP Request',
				ratio(o!.answeredP95, h.answeredP95),
				'printed',
			],
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
			'Rush: buyers without an answer after their tries (package)',
			String(o!.unanswered),
			zero(o!.unanswered),
		],
	);
	return rows;
}
