import type { Company, Lang } from './model';
import type { ApiState } from './state';

/** What an API route handler is given. */
export interface Ctx {
	app: ApiState;
	/** The caller's company; undefined only on POST /token. */
	company: Company;
	lang: Lang;
	query: URLSearchParams;
	body: unknown;
}

/** What a control-surface (`/__sandbox`) handler is given: no caller, no language. */
export interface AdminCtx {
	app: ApiState;
	body: unknown;
	query: URLSearchParams;
}
