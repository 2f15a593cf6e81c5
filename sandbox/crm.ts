/**
 * The stand-in CRM's deals, kept as a CRM that upserts by an external id keeps them (HubSpot's
 * upsert by a unique property, Salesforce's upsert by an External ID field): writing a deal under
 * an id it already holds replaces its properties, so a sale delivered twice (a push retried, a
 * sale both pushed and polled) is still one deal. `writes` counts the writes a deal took.
 */
export interface CrmDeal {
	externalId: string;
	/** The body of the latest write, as it came. */
	properties: unknown;
	/** Sandbox clock, ISO. */
	createdAt: string;
	updatedAt: string;
	writes: number;
}

export class StandInCrm {
	private readonly deals = new Map<string, CrmDeal>();
	/** While set, every write is answered with this status and changes nothing (an outage). */
	outage?: number;

	upsert(externalId: string, properties: unknown, at: string): { deal: CrmDeal; created: boolean } {
		const known = this.deals.get(externalId);
		const deal: CrmDeal = known
			? { ...known, properties, updatedAt: at, writes: known.writes + 1 }
			: { externalId, properties, createdAt: at, updatedAt: at, writes: 1 };
		this.deals.set(externalId, deal);
		return { deal, created: !known };
	}

	/** Oldest first (by first write). */
	list(): CrmDeal[] {
		return [...this.deals.values()];
	}

	get(externalId: string): CrmDeal | undefined {
		return this.deals.get(externalId);
	}

	clear(): void {
		this.deals.clear();
	}
}
