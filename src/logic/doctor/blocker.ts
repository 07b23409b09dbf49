/**
 * One thing that keeps a node from reaching its pool's config, as `mco doctor` and the dashboard
 * tell it: what kind of thing, which object, why it blocks, and what lifts it.
 */
export type BlockerKind =
  | 'PodDisruptionBudget'
  | 'Pod'
  | 'HealthGate'
  | 'MaintenanceWindow'
  | 'RolloutHold'
  | 'PausedPool'
  | 'RenderFailed'
  | 'MaxUnavailable'
  | 'Image'
  | 'DriftedFile'
  | 'Extension'
  | 'Degraded'
  | 'CertificateSigningRequest';

export interface Blocker {
  readonly kind: BlockerKind;
  /** The object as kubectl names it (`poddisruptionbudget/db -n shop`, `mcp/worker`), or a file. */
  readonly object: string;
  readonly why: string;
  /** The command to run, or the step to take, that lifts it. */
  readonly fix: string;
}
