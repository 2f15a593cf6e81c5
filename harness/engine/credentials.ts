import {
	ICredentials,
	ICredentialsHelper,
	NodeHelpers,
	isExpression,
	type ICredentialDataDecryptedObject,
	type ICredentialsEncrypted,
	type ICredentialsExpressionResolveValues,
	type ICredentialType,
	type IDataObject,
	type IHttpRequestHelper,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeParameters,
	type INodeProperties,
	type IRequestOptionsSimplified,
	type IWorkflowExecuteAdditionalData,
	type Workflow,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

/**
 * The credentials side of n8n for tests: an in-memory stand-in for n8n's CLI `CredentialsHelper`
 * (packages/cli/src/credentials-helper.ts), which keeps credentials in the database. Same contract:
 * `getDecrypted` hands out a copy with the type's defaults applied, `authenticate` applies the
 * type's `authenticate`, and `preAuthentication` refreshes an expirable property and persists it.
 * Not covered: overwrites, external secrets, OAuth, the credential-test shortcut.
 */

interface Stored {
	details: { id: string; name: string };
	type: string;
	data: ICredentialDataDecryptedObject;
}

/** One `credentialsHelper.preAuthentication` call as n8n-core made it. */
export interface PreAuthCall {
	type: string;
	credentialId: string | null;
	credentialsExpired: boolean;
	/** Whether the type's own `preAuthentication` ran (and so a token was fetched). */
	refreshed: boolean;
}

/**
 * Plain-JSON `ICredentials`: the CLI's encrypts, which needs the instance key; nothing here reads
 * the cipher text.
 */
class PlainCredentials extends ICredentials {
	async getData(): Promise<ICredentialDataDecryptedObject> {
		return JSON.parse(this.data ?? '{}');
	}

	getDataToSave(): ICredentialsEncrypted {
		return { id: this.id, name: this.name, type: this.type, data: this.data };
	}

	async setData(data: ICredentialDataDecryptedObject) {
		this.data = JSON.stringify(data);
	}

	async updateData(toUpdate: ICredentialDataDecryptedObject, toDelete: string[] = []) {
		const data = { ...(await this.getData()), ...toUpdate };
		for (const key of toDelete) delete data[key];
		await this.setData(data);
	}
}

/**
 * n8n-core passes the node's whole helper set; the CLI narrows it to `httpRequest` (the one method
 * IHttpRequestHelper declares; it also applies the credential's domain allowlist, not done here).
 */
function onlyHttpRequest(helpers: IHttpRequestHelper): IHttpRequestHelper {
	return {
		helpers: { httpRequest: async (options) => await helpers.helpers.httpRequest(options) },
	};
}

export class CredentialStore extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>();
	private readonly stored = new Map<string, Stored>();
	/** Every `preAuthentication` call n8n-core made, in order. */
	readonly preAuthCalls: PreAuthCall[] = [];
	/** How many times a node read a credential of each type (`getDecrypted`: n8n's database read). */
	readonly reads: Record<string, number> = {};
	/** Every `updateCredentials` write, in order (a copy of the data written). */
	readonly updates: Array<{ credentialId: string; data: ICredentialDataDecryptedObject }> = [];

	/**
	 * How a refreshed token is persisted: `merge` as n8n 2.x (the output merged into the credential
	 * as stored now), `whole` as n8n 1.x (the run's own copy of the credential, output merged in,
	 * written over what is stored: an edit saved meanwhile is lost).
	 */
	constructor(
		credentialTypes: ICredentialType[],
		private readonly persist: 'merge' | 'whole' = 'merge',
	) {
		super();
		for (const type of credentialTypes) this.types.set(type.name, type);
	}

	/** Stores a credential and returns what a node's `credentials[type]` holds to point at it. */
	add(
		type: string,
		data: ICredentialDataDecryptedObject,
		details: { id?: string; name?: string } = {},
	) {
		this.credentialType(type);
		const id = details.id ?? String(this.stored.size + 1);
		const stored = {
			details: { id, name: details.name ?? `${type} ${id}` },
			type,
			data: structuredClone(data),
		};
		this.stored.set(id, stored);
		return { ...stored.details };
	}

	/**
	 * A user's edit in n8n's credential dialog, saved: the fields given replace theirs, and the
	 * hidden ones (a token, what it was issued for) stay as they were, as n8n keeps them on save.
	 */
	edit(id: string, changes: ICredentialDataDecryptedObject): void {
		const stored = this.find({ id });
		stored.data = { ...stored.data, ...structuredClone(changes) };
	}

	/** What the database would now hold for a credential (a copy). */
	data(id: string): ICredentialDataDecryptedObject {
		return structuredClone(this.find({ id }).data);
	}

	/** `node.credentials` for a node declaring these types: the first stored credential of each. */
	nodeCredentials(types: string[]): Record<string, INodeCredentialsDetails> {
		const result: Record<string, INodeCredentialsDetails> = {};
		for (const type of types) {
			const stored = [...this.stored.values()].find((s) => s.type === type);
			if (stored) result[type] = { ...stored.details };
		}
		return result;
	}

	/**
	 * Name -> value of every password field stored (API keys, tokens, webhook secrets), for leak
	 * scans.
	 */
	secrets(): Record<string, string> {
		const secrets: Record<string, string> = {};
		for (const { details, type, data } of this.stored.values()) {
			for (const property of this.credentialType(type).properties) {
				const value = data[property.name];
				if (property.typeOptions?.password && typeof value === 'string')
					secrets[`${type}.${property.name} of credential ${details.id}`] = value;
			}
		}
		return secrets;
	}

	/** How many times a type's own `preAuthentication` ran (token fetches). */
	get preAuthenticationCount() {
		return this.preAuthCalls.filter((call) => call.refreshed).length;
	}

	getParentTypes(name: string): string[] {
		const parents = this.credentialType(name).extends ?? [];
		return parents.flatMap((parent) => [
			parent,
			...(this.types.has(parent) ? this.getParentTypes(parent) : []),
		]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialType(type).properties;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		const stored = this.find(nodeCredentials, type);
		return new PlainCredentials(stored.details, type, JSON.stringify(stored.data));
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: unknown,
		raw?: boolean,
		resolve?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		this.reads[type] = (this.reads[type] ?? 0) + 1;
		const data = structuredClone(this.find(nodeCredentials, type).data);
		if (raw) return data;
		// Defaults matter for the contract: a never-filled expirable `token` reads '' (not undefined),
		// and '' is what makes `preAuthentication` fetch one.
		const withDefaults = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			data as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (!resolve) return withDefaults;
		const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } = resolve;
		return workflow.expression.getParameterValue(
			withDefaults as INodeParameters,
			runExecutionData,
			runIndex,
			itemIndex,
			node.name,
			connectionInputData,
			mode,
			{},
			executeData as never,
			false,
			withDefaults,
		) as ICredentialDataDecryptedObject;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.credentialType(typeName);
		if (typeof authenticate === 'function')
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		if (!authenticate || authenticate.type !== 'generic')
			return requestOptions as IHttpRequestOptions;
		if (!workflow || !node)
			throw new Error('Workflow and node are required for generic credential authentication');
		const resolveValue = (value: string) =>
			isExpression(value)
				? String(
						workflow.expression.getSimpleParameterValue(
							node,
							value,
							'internal',
							{ $credentials: credentials },
							undefined,
							'',
						) || '',
					)
				: value;
		const target = requestOptions as unknown as Record<string, IDataObject>;
		target.headers ??= {};
		// Merged into what the node set: headers, qs, body or auth, key by key.
		for (const [section, entries] of Object.entries(authenticate.properties)) {
			target[section] ??= {};
			for (const [key, value] of Object.entries(entries as IDataObject)) {
				target[section][resolveValue(key)] = resolveValue(value as string);
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.credentialType(typeName);
		const details = node.credentials?.[typeName];
		const call: PreAuthCall = {
			type: typeName,
			credentialId: details?.id ?? null,
			credentialsExpired,
			refreshed: false,
		};
		this.preAuthCalls.push(call);
		const expirable = type.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		)?.name;
		if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
		if (credentials[expirable] !== '' && !credentialsExpired) return undefined;

		call.refreshed = true;
		const output = (await type.preAuthentication.call(onlyHttpRequest(helpers), credentials)) as
			| ICredentialDataDecryptedObject
			| undefined;
		// As in n8n: without the expirable property in the output nothing is stored or merged,
		// and without node credentials there is nowhere to store it.
		if (output?.[expirable] === undefined || !details) return undefined;
		if (this.persist === 'whole') {
			await this.updateCredentials(details, typeName, { ...credentials, ...output });
			return Object.assign(credentials, output);
		}
		const stored = this.find(details, typeName).data;
		const toPersist = { ...stored };
		for (const [key, value] of Object.entries(output)) {
			// A field the user stored as an expression keeps the expression.
			if (key === expirable || !isExpression(stored[key])) toPersist[key] = value;
		}
		await this.updateCredentials(details, typeName, toPersist);
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const { preAuthentication } = this.credentialType(typeName);
		if (typeof preAuthentication !== 'function') return undefined;
		return (
			((await preAuthentication.call(
				onlyHttpRequest(helpers),
				credentials,
			)) as ICredentialDataDecryptedObject) ?? undefined
		);
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	) {
		const stored = this.find(nodeCredentials, type);
		stored.data = structuredClone(data);
		this.updates.push({ credentialId: stored.details.id, data: structuredClone(data) });
	}

	async updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	) {
		const stored = this.find(nodeCredentials, type);
		await this.updateCredentials(nodeCredentials, type, {
			...stored.data,
			oauthTokenData: data.oauthTokenData,
		});
	}

	credentialType(name: string): ICredentialType {
		const type = this.types.get(name);
		if (!type)
			throw new Error(`Unknown credential type "${name}": pass it to new CredentialStore([...])`);
		return type;
	}

	private find(details: Partial<INodeCredentialsDetails>, type?: string): Stored {
		// n8n looks credentials up by id and type; a missing id is an error there too.
		const stored = details.id ? this.stored.get(details.id) : undefined;
		if (!stored || (type && stored.type !== type)) {
			throw new Error(
				`Credential with ID "${details.id}" does not exist for type "${type ?? '?'}"`,
			);
		}
		return stored;
	}
}
