/**
 * An edit of the credential saved while a run's POST /token is on the way: what holds on each n8n
 * line (docs/security.md, "One narrow case on n8n 1.x"). The run reads the credential again just
 * before its token request, so its token is for the fields it read; then n8n stores the token:
 * - n8n 2.x merges the new token fields into the credential as stored at that moment: the edit
 *   stays, and the next run requests a token for the key as saved and acts as it;
 * - n8n 1.x writes the run's whole copy back with the token (CredentialsHelper.preAuthentication
 *   -> updateCredentials): the edit is undone. A node cannot see it (the edit is gone from the
 *   database before the node's request returns), so what holds is that the credential stays
 *   whole: the previous fields with a token issued for them, every later run acting as that one
 *   key, and the edit saved again is the key used from the next run on.
 * Found by an outside review: docs/security.md said the stored credential is never reverted, and
 * on n8n 1.x an edit saved during the token request was.
 */
import { PublicEventsApi } from '../../../../credentials/PublicEventsApi.credentials';
import { CredentialStore } from '../../../../harness/engine';
import { CREDENTIAL, runPublicEvents } from '../../../../harness/nodes/publicEvents';
import { SandboxClient } from '../../../../harness/sandbox/client';

let sb: SandboxClient;
beforeAll(async () => {
	sb = await SandboxClient.start({ events: 2, placesPerEvent: 1 });
});
afterAll(() => sb.stop());

type Company = 'partner' | 'organiser';
const keyId = (company: Company) =>
	sb.app.store.apiKeys.find((k) => k.key === sb.keys[company])!.id;

const countries = {
	resource: 'reference',
	operation: 'getManyCountries',
	returnAll: false,
	limit: 1,
};

/** The key ids the service saw a token issued for or used with, during one run. */
async function actedAs(store: CredentialStore): Promise<number[]> {
	const kids: number[] = [];
	const stop = sb.app.issuer.observe((event) => {
		if (event.kind === 'used' || event.kind === 'issued') kids.push(event.kid);
	});
	const run = await runPublicEvents(store, countries);
	stop();
	expect(run.error).toBeUndefined();
	return [...new Set(kids)];
}

/** A credential of the partner's key, replaced by the organiser's while the token is issued. */
async function editedDuringTokenRequest(persist: 'merge' | 'whole') {
	const store = new CredentialStore([new PublicEventsApi()], persist);
	const { id } = store.add(CREDENTIAL, {
		environment: 'staging',
		baseUrl: sb.sandbox.baseUrl,
		apiKey: sb.keys.partner,
	});
	let edited = false;
	const stop = sb.app.issuer.observe((event) => {
		// The user presses Save in the credential dialog while the run's POST /token is answered.
		if (event.kind === 'issued' && !edited) {
			edited = true;
			store.edit(id, { apiKey: sb.keys.organiser });
		}
	});
	const first = await runPublicEvents(store, countries);
	stop();
	expect([edited, first.error]).toEqual([true, undefined]);
	const stored = (): Company =>
		store.data(id).apiKey === sb.keys.organiser ? 'organiser' : 'partner';
	return { store, id, stored };
}

describe('an edit saved while a run requests its token', () => {
	it('n8n 2.x: the edit stays, and the next run acts as the key saved', async () => {
		const { store, stored } = await editedDuringTokenRequest('merge');
		expect(stored()).toBe('organiser');
		expect(await actedAs(store)).toEqual([keyId('organiser')]);
	});

	it(
		'n8n 1.x: the edit is undone (documented); the credential holds the previous key with its ' +
			'own token, later runs act as that key only, and the edit saved again is the key used',
		async () => {
			const { store, id, stored } = await editedDuringTokenRequest('whole');
			expect(stored()).toBe('partner');
			expect(await actedAs(store)).toEqual([keyId('partner')]);
			store.edit(id, { apiKey: sb.keys.organiser });
			expect(stored()).toBe('organiser');
			expect(await actedAs(store)).toEqual([keyId('organiser')]);
		},
	);
});
