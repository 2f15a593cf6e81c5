// The transport's front door: what operations, triggers, credential tests and list methods use.
// Nothing outside this folder imports its other files (test/repository/imports.test.ts).

export { apiRequest, type RequestSettings } from './request';
export { apiRequestAllItems, type PageSettings } from './allItems';
export { MAX_PAGE_SIZE, Pager } from './paging';
export { inOrder, MAX_PAGES_IN_FLIGHT } from './pages';
export { readListPage, type ListPage } from './listEnvelope';
export {
	CREDENTIAL_TYPE,
	rereadCredential,
	serviceNow,
	serviceOf,
	type ApiContext,
} from './target';
export { successOf, uncertainWrite, type Success } from './answers';
export { apiError, type ApiFailure } from './errors';
export { backoffMs, DEFAULT_RETRY, retryPolicyFrom } from './retry';
export {
	apiUrl,
	insecureBaseUrl,
	issuedFor,
	LANGUAGE_CODE,
	originOf,
	requestOrigin,
	shownUrl,
	tokenBound,
	tokenFailure,
} from './connection';
