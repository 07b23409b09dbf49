/**
 * Per-kind write behaviour, as each kind's registry strategy upstream defines it: which kinds track
 * `metadata.generation`, what status a new object starts with, whether PUT may create or skip the
 * resourceVersion, kind-specific normalisation (Secret stringData), validation (MachineConfig,
 * PodDisruptionBudget, ConfigMap and Secret sizes), the warnings a write answers with
 * (MachineConfig) and subresource rules (CertificateSigningRequest, csr-strategy.ts).
 */
import type { FieldError } from '../../api/meta/v1/field-error.js';
import type { KubeObject, UserInfo, WriteSubresource } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import type { StoreContext } from './context.js';
import { csrFieldErrors, prepareCsrForCreate, prepareCsrForUpdate } from './csr-strategy.js';
import { isJsonMap, type JsonMap } from './json.js';
import { configMapErrors, secretErrors } from './config-data-validation.js';
import { machineConfigErrors } from './machine-config-admission.js';
import { machineConfigWarnings } from './machine-config-warnings.js';
import { podDisruptionBudgetErrors } from './pdb-validation.js';

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
  readonly prepareForCreate?: (obj: KubeObject, user: UserInfo) => void;
  /** The kind's own split of an update by subresource (a CSR's spec never changes). */
  readonly prepareForUpdate?: (
    old: KubeObject,
    next: KubeObject,
    subresource: WriteSubresource | undefined,
    now: string,
  ) => void;
  /** Field errors that take asynchronous checks (a CSR's request signature); `old` on update. */
  readonly fieldErrors?: (obj: KubeObject, old: KubeObject | undefined) => Promise<FieldError[]>;
  /** What an accepted create or update is warned about (returned as `Warning` headers). */
  readonly warnings?: (ctx: StoreContext, obj: KubeObject) => Promise<string[]>;
}

const none = (): FieldError[] => [];
const nothing = (): void => undefined;

const BUILT_IN: KindStrategy = {
  tracksGeneration: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  statusOnCreate: 'keep',
  controllerFinalized: false,
  normalize: nothing,
  validate: none,
};

/** policy/v1 and apps/v1 zero-value statuses, as Go marshals an empty status struct. */
const PDB_ZERO_STATUS = (): JsonMap => ({
  disruptionsAllowed: 0,
  currentHealthy: 0,
  desiredHealthy: 0,
  expectedPods: 0,
});
const DS_ZERO_STATUS = (): JsonMap => ({
  currentNumberScheduled: 0,
  numberMisscheduled: 0,
  desiredNumberScheduled: 0,
  numberReady: 0,
});

const BUILT_INS: Readonly<Record<string, KindStrategy>> = {
  '/Node': BUILT_IN,
  '/Pod': { ...BUILT_IN, statusOnCreate: () => ({ phase: 'Pending' }) },
  '/Namespace': {
    ...BUILT_IN,
    statusOnCreate: () => ({ phase: 'Active' }),
    controllerFinalized: true,
  },
  '/Event': { ...BUILT_IN, allowCreateOnUpdate: true },
  '/Secret': { ...BUILT_IN, normalize: mergeStringData, validate: secretErrors },
  '/ConfigMap': { ...BUILT_IN, validate: configMapErrors },
  'coordination.k8s.io/Lease': { ...BUILT_IN, allowCreateOnUpdate: true },
  'policy/PodDisruptionBudget': {
    ...BUILT_IN,
    tracksGeneration: true,
    statusOnCreate: PDB_ZERO_STATUS,
    validate: podDisruptionBudgetErrors,
  },
  'apps/DaemonSet': { ...BUILT_IN, tracksGeneration: true, statusOnCreate: DS_ZERO_STATUS },
  'certificates.k8s.io/CertificateSigningRequest': {
    ...BUILT_IN,
    statusOnCreate: 'drop',
    prepareForCreate: prepareCsrForCreate,
    prepareForUpdate: prepareCsrForUpdate,
    fieldErrors: csrFieldErrors,
  },
};

export function strategyFor(rt: ResourceType): KindStrategy {
  const known = BUILT_INS[`${rt.group}/${rt.kind}`];
  if (known !== undefined) return known;
  if (rt.builtIn) return BUILT_IN;
  const custom: KindStrategy = {
    tracksGeneration: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    statusOnCreate: rt.subresources.includes('status') ? 'drop' : 'keep',
    controllerFinalized: false,
    normalize: nothing,
    validate: none,
  };
  return rt.group === 'machineconfiguration.openshift.io' && rt.kind === 'MachineConfig'
    ? { ...custom, validate: machineConfigErrors, warnings: machineConfigWarnings }
    : custom;
}

/** True when writes to the main resource leave `.status` alone. */
export function hasStatusSubresource(rt: ResourceType): boolean {
  return rt.subresources.includes('status');
}

/** Secret `stringData` is write-only: each entry lands base64-encoded in `data`. */
function mergeStringData(obj: KubeObject): void {
  const stringData = obj['stringData'];
  if (!isJsonMap(stringData)) return;
  const data = isJsonMap(obj['data']) ? obj['data'] : {};
  for (const [key, value] of Object.entries(stringData)) {
    data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  }
  obj['data'] = data;
  delete obj['stringData'];
}
