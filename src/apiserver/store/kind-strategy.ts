/**
 * The shape of a kind's write behaviour (upstream's registry strategy) and the behaviour every
 * built-in kind starts from; a kind descriptor overrides only what its kind does differently.
 */
import type { FieldError } from '../../api/meta/v1/field-error.js';
import type { KubeObject, UserInfo, WriteSubresource } from '../resource-store.js';
import type { JsonMap } from './json.js';

/** What happens to `.status` on create: kept as sent, dropped, or replaced by an initial value. */
type StatusOnCreate = 'keep' | 'drop' | (() => JsonMap);

export interface KindStrategy {
  /** generation starts at 1 and grows when anything outside metadata (and status) changes. */
  readonly tracksGeneration: boolean;
  /** PUT of a missing object creates it (Events, Leases). */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion is allowed (built-ins) or 422 (custom resources). */
  readonly allowUnconditionalUpdate: boolean;
  readonly statusOnCreate: StatusOnCreate;
  /**
   * Deletion always goes through deletionTimestamp and is finished by a controller (namespaces:
   * once their content is gone), even without finalizers.
   */
  readonly controllerFinalized: boolean;
  /** Rewrites an incoming object into its stored form. */
  readonly normalize: (obj: KubeObject) => void;
  /** Kind-specific field errors, after the schema's. */
  readonly validate: (obj: KubeObject) => FieldError[];
  /** Sets what the server owns from the requester on create (a CSR's `spec.username`). */
  readonly prepareForCreate?: (obj: KubeObject, user: UserInfo, now: string) => void;
  /** The kind's own split of an update by subresource (a CSR's spec never changes). */
  readonly prepareForUpdate?: (
    old: KubeObject,
    next: KubeObject,
    subresource: WriteSubresource | undefined,
    request: UpdateRequest,
  ) => void;
  /** Field errors that take asynchronous checks (a CSR's request signature); `old` on update. */
  readonly fieldErrors?: (obj: KubeObject, old: KubeObject | undefined) => Promise<FieldError[]>;
  /** What an accepted create or update is warned about (returned as `Warning` headers). */
  readonly warnings?: (reads: WarningReads, obj: KubeObject) => Promise<string[]>;
}

export const noFieldErrors = (): FieldError[] => [];
export const noNormalization = (): void => undefined;

/** What an update's preparation knows of its request: when (what the kind dates) and who. */
export interface UpdateRequest {
  readonly now: string;
  readonly user: UserInfo;
}

/** A built-in kind's strategy where its descriptor says nothing. */
export const BuiltInStrategy: KindStrategy = {
  tracksGeneration: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  statusOnCreate: 'keep',
  controllerFinalized: false,
  normalize: noNormalization,
  validate: noFieldErrors,
};

/**
 * What a kind's write warnings may read: the objects of another served kind, from the watch cache
 * (`undefined` when that kind is not served). Narrower than the store's context, which the kinds'
 * descriptors must not import (it reads the kinds).
 */
export interface WarningReads {
  listKind(group: string, kind: string): Promise<readonly KubeObject[] | undefined>;
}
