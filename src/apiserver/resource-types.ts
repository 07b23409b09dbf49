/**
 * The kinds the embedded API server serves, as `ResourceType`s, and the registry the HTTP layer and
 * the store look them up in. Built-in kinds come from their descriptors (kinds/index.ts) and carry
 * the names, verbs and subresources of a real cluster's discovery (`/api/v1`,
 * `/apis/<group>/<version>`); the answered-only review kinds and the read-only CRDs are declared
 * here; custom kinds are derived from the same CRD info and schemas `customResourceDefinitions()`
 * publishes, so discovery and the served CRD objects always agree. Built-in kinds print through
 * their descriptors' printers (http/printers.ts), hence `[]` here.
 */
import { CustomKinds } from '../api/crds.js';
import type { CustomKind } from '../api/apiextensions/v1/custom-resource-definition.js';
import { crdOpenApiV3Schema, plainJson, type JsonObject } from '../api/schema.js';
import type { BuiltInKind } from './kinds/built-in-kind.js';
import { BuiltInKinds } from './kinds/index.js';
import type { ResourceType, Verb } from './resource-type.js';

/** Every verb of an ordinary resource, in discovery's (alphabetical) order. */
const AllVerbs: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

const ReadOnlyVerbs: readonly Verb[] = ['get', 'list', 'watch'];

function builtIn(spec: BuiltInKind): ResourceType {
  return {
    group: spec.group,
    version: spec.version,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    verbs: spec.verbs ?? AllVerbs,
    subresources: spec.subresources ?? [],
    builtIn: true,
    schema: plainJson(spec.schema),
    printerColumns: [],
  };
}

function custom(kind: CustomKind): ResourceType {
  const { info } = kind;
  return {
    group: info.group,
    version: info.version,
    kind: info.kind,
    listKind: info.listKind,
    plural: info.plural,
    singular: info.singular,
    namespaced: info.scope === 'Namespaced',
    shortNames: info.shortNames,
    categories: [],
    verbs: AllVerbs,
    subresources: info.hasStatusSubresource ? ['status'] : [],
    builtIn: false,
    schema: crdOpenApiV3Schema(kind.schema),
    printerColumns: info.additionalPrinterColumns,
  };
}

/** CRD objects are served read-only; their schema only names the top-level fields. */
const CustomResourceDefinitionSchema: JsonObject = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

const CustomResourceDefinitionType: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  verbs: ReadOnlyVerbs,
  subresources: [],
  builtIn: true,
  schema: CustomResourceDefinitionSchema,
  printerColumns: [],
};

/** A review's body: spec in, status out; nothing of it is stored. */
const ReviewSchema: JsonObject = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

function review(group: string, version: string, kind: string): ResourceType {
  return {
    group,
    version,
    kind,
    listKind: `${kind}List`,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    namespaced: false,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    subresources: [],
    builtIn: true,
    schema: ReviewSchema,
    printerColumns: [],
  };
}

/**
 * The create-only review kinds (answered, never stored: review-handlers.ts). kubectl 1.27's
 * `auth whoami` asks authentication.k8s.io v1alpha1 or v1beta1; 1.28 and later v1 first.
 */
const ReviewTypes: readonly ResourceType[] = [
  review('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview'),
  review('authorization.k8s.io', 'v1', 'SelfSubjectRulesReview'),
  review('authentication.k8s.io', 'v1', 'SelfSubjectReview'),
  review('authentication.k8s.io', 'v1beta1', 'SelfSubjectReview'),
  review('authentication.k8s.io', 'v1alpha1', 'SelfSubjectReview'),
];

/** Whether the type is a review kind, answered from the request instead of stored. */
export function isReviewType(rt: ResourceType): boolean {
  return ReviewTypes.includes(rt);
}

/** Every kind served, built-ins first (core, then the other groups), then the custom kinds. */
export function servedResourceTypes(): ResourceType[] {
  return [
    ...BuiltInKinds.map(builtIn),
    ...ReviewTypes,
    CustomResourceDefinitionType,
    ...CustomKinds.map(custom),
  ];
}

/** Lookups over a fixed set of ResourceTypes. */
export class ResourceTypeRegistry {
  readonly #types: readonly ResourceType[];
  readonly #byResource = new Map<string, ResourceType>();
  readonly #byKind = new Map<string, ResourceType>();

  constructor(types: readonly ResourceType[] = servedResourceTypes()) {
    this.#types = types;
    for (const rt of types) {
      this.#byResource.set(`${rt.group}/${rt.version}/${rt.plural}`, rt);
      this.#byKind.set(`${rt.group}/${rt.version}/${rt.kind}`, rt);
      // the first version registered for a kind answers version-less lookups
      if (!this.#byKind.has(`${rt.group}//${rt.kind}`))
        this.#byKind.set(`${rt.group}//${rt.kind}`, rt);
    }
  }

  /** Every type, in registration order. */
  list(): readonly ResourceType[] {
    return this.#types;
  }

  /** The type served at `{g}/{v}/<plural>` (core group: `''`). */
  byResource(group: string, version: string, plural: string): ResourceType | undefined {
    return this.#byResource.get(`${group}/${version}/${plural}`);
  }

  /** The type of a kind; without a version, the first registered version of it. */
  byKind(group: string, kind: string, version?: string): ResourceType | undefined {
    return this.#byKind.get(`${group}/${version ?? ''}/${kind}`);
  }

  /** The type an object's `apiVersion` + `kind` names (`v1`, `apps/v1`, ...). */
  byApiVersionKind(apiVersion: string, kind: string): ResourceType | undefined {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    return this.byKind(group, kind, version);
  }

  /** The types of one group-version, in registration order. */
  byGroupVersion(group: string, version: string): readonly ResourceType[] {
    return this.#types.filter((rt) => rt.group === group && rt.version === version);
  }
}
