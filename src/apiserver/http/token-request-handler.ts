/**
 * `POST /api/v1/namespaces/NS/serviceaccounts/NAME/token` (TokenRequest, `kubectl create token`),
 * as kube-apiserver answers it: a token for an existing ServiceAccount, for `spec.audiences`
 * (default: the server's own), valid `spec.expirationSeconds` (default 3600, at least 600, at
 * most 2^32), optionally bound to a Pod, Secret or Node of that uid; 201 with the request and
 * `status.token` / `status.expirationTimestamp`.
 */
import { invalidField, type FieldError } from '../../api/meta/v1/field-error.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { BoundObject, ServiceAccountTokens } from '../auth/service-account-tokens.js';
import type { ResourceStore } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { decodeObjectBody } from './body.js';
import { jsonResponse } from './responses.js';

export interface TokenRequestCall {
  readonly namespace: string;
  readonly name: string;
  readonly request: Request;
  readonly body: Uint8Array;
}

export interface TokenRequests {
  serve(call: TokenRequestCall): Promise<Response>;
}

const DefaultExpirationSeconds = 3600;
const MinExpirationSeconds = 600;
const MaxExpirationSeconds = 2 ** 32;
const TokenRequestKind = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

export interface TokenRequestHandlerDeps {
  readonly store: ResourceStore;
  readonly tokens: ServiceAccountTokens;
  readonly types: {
    readonly serviceAccount: ResourceType;
    readonly pod: ResourceType;
    readonly secret: ResourceType;
    readonly node: ResourceType;
  };
}

export class TokenRequestHandler implements TokenRequests {
  readonly #deps: TokenRequestHandlerDeps;

  constructor(deps: TokenRequestHandlerDeps) {
    this.#deps = deps;
  }

  async #bound(namespace: string, ref: Record<string, unknown>): Promise<BoundObject | undefined> {
    if (Object.keys(ref).length === 0) return undefined;
    const kind = ref['kind'];
    const name = typeof ref['name'] === 'string' ? ref['name'] : '';
    const { types } = this.#deps;
    const rt =
      kind === 'Pod'
        ? types.pod
        : kind === 'Secret'
          ? types.secret
          : kind === 'Node'
            ? types.node
            : undefined;
    if (rt === undefined || (ref['apiVersion'] ?? 'v1') !== 'v1')
      throw StatusError.invalid(TokenRequestKind, '', [
        invalidField(
          'spec.boundObjectRef.kind',
          typeof kind === 'string' ? kind : '',
          'supported kinds are Pod, Secret and Node (apiVersion v1)',
        ),
      ]);
    const object = await this.#deps.store.get(rt, rt.namespaced ? namespace : undefined, name);
    const uid = object.metadata.uid ?? '';
    if (typeof ref['uid'] === 'string' && ref['uid'] !== '' && ref['uid'] !== uid)
      throw StatusError.conflict(
        { group: rt.group, resource: rt.plural },
        name,
        `the UID in the bound object reference (${ref['uid']}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    return { kind, name, uid } as BoundObject;
  }

  async serve(call: TokenRequestCall): Promise<Response> {
    const decoded = decodeObjectBody(call.body, call.request.headers.get('Content-Type'), {
      kind: 'TokenRequest',
      builtIn: true,
      acceptsProtobuf: true,
    });
    if (!decoded.ok) throw decoded.error;
    const spec = record(decoded.value['spec']);
    const audiences = Array.isArray(spec['audiences'])
      ? spec['audiences'].filter((a): a is string => typeof a === 'string')
      : [];
    const expiration = spec['expirationSeconds'] ?? DefaultExpirationSeconds;
    const errors: FieldError[] = [];
    if (typeof expiration !== 'number' || !Number.isInteger(expiration))
      errors.push(
        invalidField('spec.expirationSeconds', JSON.stringify(expiration), 'must be an integer'),
      );
    else if (expiration < MinExpirationSeconds)
      errors.push(
        invalidField(
          'spec.expirationSeconds',
          expiration,
          'may not specify a duration less than 10 minutes',
        ),
      );
    else if (expiration > MaxExpirationSeconds)
      errors.push(
        invalidField(
          'spec.expirationSeconds',
          expiration,
          'may not specify a duration larger than 2^32 seconds',
        ),
      );
    if (errors.length > 0) throw StatusError.invalid(TokenRequestKind, '', errors);
    const sa = await this.#deps.store.get(
      this.#deps.types.serviceAccount,
      call.namespace,
      call.name,
    );
    const boundObject = await this.#bound(call.namespace, record(spec['boundObjectRef']));
    const asked = audiences.length > 0 ? audiences : this.#deps.tokens.apiAudiences;
    const issued = this.#deps.tokens.issue({
      namespace: call.namespace,
      name: call.name,
      uid: sa.metadata.uid ?? '',
      audiences: asked,
      expirationSeconds: expiration as number,
      ...(boundObject === undefined ? {} : { boundObject }),
    });
    return jsonResponse(201, {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: call.name, namespace: call.namespace, creationTimestamp: null },
      spec: {
        audiences: asked,
        expirationSeconds: expiration,
        boundObjectRef:
          boundObject === undefined
            ? null
            : {
                kind: boundObject.kind,
                apiVersion: 'v1',
                name: boundObject.name,
                uid: boundObject.uid,
              },
      },
      status: {
        token: issued.token,
        expirationTimestamp: new Date(issued.expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    });
  }
}
