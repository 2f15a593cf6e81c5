import type { IDataObject } from 'n8n-workflow';

/** The name of a nested record (`venue`, `city`, ...), or undefined. */
export const nameOf = (value: unknown) =>
	(value && typeof value === 'object' ? (value as IDataObject).name : undefined) as
		| string
		| undefined;

/** `{ amount, currency }` as "70 EUR", or undefined. */
export function moneyText(value: unknown): string | undefined {
	const { amount, currency } = (value ?? {}) as IDataObject;
	return amount === undefined ? undefined : `${String(amount)} ${String(currency ?? '')}`.trim();
}

/** A price category's amount as a number (`price` as `{ amount }` or a number), else Infinity. */
export const amountOf = (category: IDataObject): number => {
	const price = category.price as IDataObject | number | undefined;
	const amount = Number(typeof price === 'object' && price !== null ? price.amount : price);
	return Number.isFinite(amount) ? amount : Infinity;
};

const STATUS_WORDS: Record<string, string> = {
	reserved_to_time: 'held, not paid',
	created: 'being created',
	paid: 'paid',
	expired: 'released (its hold ended)',
	refund: 'refunded',
	cancelled: 'cancelled',
};

/**
 * An order's status in a partner's words, the API's name after it: "held, not paid
 * (reserved_to_time)".
 */
export function statusText(status: unknown): string {
	const name = String(status ?? 'without a status');
	const words = STATUS_WORDS[name];
	return words && words !== name ? `${words} (${name})` : name;
}
