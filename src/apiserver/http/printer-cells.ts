/**
 * Cells the hand-written printers of several kinds share, formatted as Kubernetes' printers
 * (`pkg/printers/internalversion`) format them.
 */
import type { KubeObject } from '../resource-store.js';
import { ageOf } from './human-duration.js';

export const age = (o: KubeObject, now: number): string => ageOf(o.metadata.creationTimestamp, now);

export const name = (o: KubeObject): string => o.metadata.name ?? '';

/** intstr.IntOrString.String(), or `N/A` when unset. */
export function intOrStringCell(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return 'N/A';
}

export const ContainersDescription = 'Names of each container in the template.';
export const ImagesDescription = 'Images referenced by each container in the template.';
