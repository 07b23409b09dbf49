/**
 * ResourceType: everything the API server knows about one kind it serves: names for routing and
 * discovery, scope, verbs, subresources, the schema it validates against and publishes as OpenAPI,
 * and the printer columns of `kubectl get`. Built-in kinds (core, apps, policy, coordination) accept
 * strategic merge patch; custom resources do not (415), as on a real cluster.
 */
import type { PrinterColumn } from '../api/apiextensions/v1/custom-resource-definition.js';
import type { JsonObject } from '../api/schema.js';

export type Verb =
  'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export type Subresource = 'status' | 'approval' | 'eviction' | 'log' | 'token';

export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly Verb[];
  /**
   * `status` for kinds with a status subresource; `eviction` and `log` for pods; `approval` for
   * CSRs; `token` (TokenRequest) for ServiceAccounts.
   */
  readonly subresources: readonly Subresource[];
  /** Native Kubernetes kinds: strategic merge patch allowed, hand-written printers. */
  readonly builtIn: boolean;
  /** Structural OpenAPI v3 schema: admission validates against it; OpenAPI publishes it. */
  readonly schema: JsonObject;
  /** CRD-style columns evaluated by JSONPath; built-ins print through named printers instead. */
  readonly printerColumns: readonly PrinterColumn[];
}

/** `apiVersion` of a ResourceType: `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(rt: Pick<ResourceType, 'group' | 'version'>): string {
  return rt.group === '' ? rt.version : `${rt.group}/${rt.version}`;
}
