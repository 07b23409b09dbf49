/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition, the subset this project serves: names, scope,
 * one version with its structural schema, printer columns and the status subresource. `CrdInfo` is
 * the per-kind metadata (names, columns) the API server needs to route and print a kind.
 */
import type { TSchema } from '@sinclair/typebox';
import type { JsonObject } from '../../schema.js';
import type { ObjectMeta } from '../../meta/v1/object-meta.js';

export const ApiextensionsApiVersion = 'apiextensions.k8s.io/v1';

/** An `additionalPrinterColumns` entry, evaluated by the server for `kubectl get`. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
  readonly format?: string;
}

type ResourceScope = 'Cluster' | 'Namespaced';

/** What the API server needs to know about a custom kind besides its schema. */
export interface CrdInfo {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly scope: ResourceScope;
  readonly hasStatusSubresource: boolean;
  readonly additionalPrinterColumns: readonly PrinterColumn[];
}

interface CustomResourceDefinitionNames {
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames?: readonly string[];
}

interface CustomResourceDefinitionVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema: { readonly openAPIV3Schema: JsonObject };
  readonly subresources?: { readonly status?: Readonly<Record<string, never>> };
  readonly additionalPrinterColumns?: readonly PrinterColumn[];
}

export interface CustomResourceDefinition {
  readonly apiVersion: typeof ApiextensionsApiVersion;
  readonly kind: 'CustomResourceDefinition';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly group: string;
    readonly names: CustomResourceDefinitionNames;
    readonly scope: ResourceScope;
    readonly versions: readonly CustomResourceDefinitionVersion[];
  };
}

/** The printer column every kind ends with (and the only one of kinds without columns). */
export const AgeColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
};

/** A served custom kind: its CRD metadata and the TypeBox schema of one object. */
export interface CustomKind {
  readonly info: CrdInfo;
  readonly schema: TSchema;
}
