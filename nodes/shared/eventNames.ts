import type { IDataObject } from 'n8n-workflow';

import { apiRequestAllItems, type ApiContext, type PageSettings } from './transport';
import { changeId } from './changes';

type Names = Map<string, string | null>;
/** Anything that names an event and wants its name. */
type Row = { eventPointId: string | null; eventName: string | null };

const ARCHIVE = '/event-points-archived';

/**
 * Event names for rows, read at most once per run: the whole event list, then the archive only
 * when some event is still unknown (a sale of an event whose sale has ended). An event in
 * neither (no longer linked to the company) stays null.
 */
export class EventNames {
	private live?: Promise<Names>;
	private archived?: Promise<Names>;

	constructor(
		private readonly context: ApiContext,
		private readonly settings: PageSettings,
	) {}

	private async read(path: string): Promise<Names> {
		const { retry, language, itemIndex, maxPagesInFlight } = this.settings;
		const names = apiRequestAllItems
			.call(this.context, path, {}, { retry, language, itemIndex, maxPagesInFlight })
			.then(namesOf);
		if (path !== ARCHIVE) return await names;
		// A key without the archive leaves those names null rather than failing every run; any other
		// failure is the transport's NodeApiError, passed on as it is.
		return await names.catch(async (error: unknown) =>
			['403', '404'].includes(String((error as { httpCode?: unknown }).httpCode))
				? new Map()
				: await Promise.reject(error),
		);
	}

	/** The rows with eventName set; no request when no row names an event. */
	async fill<T extends Row>(rows: T[]): Promise<T[]> {
		return (await this.named(rows, false)).rows;
	}

	/**
	 * The rows with the names that could be read: when the event list or the archive fails (after
	 * the retries), those rows keep eventName null and the error comes back beside them. For the
	 * triggers: a sale matters more than its event's name, and a later reading fixes the name.
	 */
	async fillWhatCanBeRead<T extends Row>(rows: T[]): Promise<{ rows: T[]; unreadable?: Error }> {
		return await this.named(rows, true);
	}

	private async named<T extends Row>(
		rows: T[],
		tolerant: boolean,
	): Promise<{ rows: T[]; unreadable?: Error }> {
		const wanted = [
			...new Set(rows.map((row) => row.eventPointId).filter((id): id is string => id !== null)),
		];
		if (wanted.length === 0) return { rows };
		let unreadable: Error | undefined;
		const settle = async (names: Promise<Names>): Promise<Names> =>
			tolerant
				? await names.catch((error: unknown) => {
						unreadable ??= error as Error;
						return new Map() as Names;
					})
				: await names;
		const live = await settle((this.live ??= this.read('/event-points')));
		const archived = wanted.some((id) => !live.has(id))
			? await settle((this.archived ??= this.read(ARCHIVE)))
			: new Map();
		const nameOf = (id: string | null) =>
			id === null ? null : (live.get(id) ?? archived.get(id) ?? null);
		return {
			rows: rows.map((row) => ({ ...row, eventName: nameOf(row.eventPointId) })),
			unreadable,
		};
	}
}

function namesOf(events: IDataObject[]): Names {
	const names: Names = new Map();
	for (const event of events) {
		const id = changeId(event.id ?? event['@id']);
		const name = event.eventName ?? event.name;
		if (id !== null) names.set(id, typeof name === 'string' && name !== '' ? name : null);
	}
	return names;
}

/** One EventNames per node run (the action node runs its items on one context) and language. */
const perRun = new WeakMap<object, Map<string, EventNames>>();

export function eventNamesOf(context: ApiContext, settings: PageSettings): EventNames {
	const byLanguage = perRun.get(context) ?? new Map<string, EventNames>();
	perRun.set(context, byLanguage);
	const key = settings.language ?? '';
	let names = byLanguage.get(key);
	if (!names) byLanguage.set(key, (names = new EventNames(context, settings)));
	return names;
}
