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
