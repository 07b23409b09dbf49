/**
 * Events the daemon records about its Node (docs/reference/catalog.md §A.4: NodeDone, BootResync,
 * OnDiskStateValidationFailed, FailedToReconcile, OSUpdateStarted, OSUpdateStaged, SkipReboot,
 * ConfigDriftDetected, …). The CLI backs this with the API event recorder, which fills in the
 * Node's uid (upstream's getNodeRef carries it; `kubectl describe node` selects events by it);
 * without a cluster (`--once-from`) they only reach the log.
 */

type DaemonEventType = 'Normal' | 'Warning';

export interface DaemonEvents {
  /** Records an event about the daemon's Node; never rejects. */
  emit(type: DaemonEventType, reason: string, message: string): Promise<void>;
}
