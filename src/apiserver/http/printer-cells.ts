/**
 * Cells the hand-written printers of several kinds share, formatted as Kubernetes' printers
 * (`pkg/printers/internalversion`) format them.
 */
import type { KubeObject } from '../resource-store.js';
import { ageOf } from './human-duration.js';
import { at, formatLabelSelector, list, str } from './json-access.js';
import { column, type TableColumnDefinition } from './table-types.js';

export const age = (o: KubeObject, now: number): string => ageOf(o.metadata.creationTimestamp, now);

export const name = (o: KubeObject): string => o.metadata.name ?? '';

/** intstr.IntOrString.String(), or `N/A` when unset. */
export function intOrStringCell(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return 'N/A';
}

/**
 * The wide columns of a workload with a pod template (Deployment, DaemonSet): Containers, Images
 * and Selector, as their printers put them last; `selectorDescription` is the kind's own.
 */
export function podTemplateColumns(selectorDescription: string): TableColumnDefinition[] {
  return [
    column('Containers', 'string', 'Names of each container in the template.', { priority: 1 }),
    column('Images', 'string', 'Images referenced by each container in the template.', {
      priority: 1,
    }),
    column('Selector', 'string', selectorDescription, { priority: 1 }),
  ];
}

/** The cells of podTemplateColumns for one object. */
export function podTemplateCells(o: KubeObject): string[] {
  const containers = list(at(o, 'spec', 'template', 'spec', 'containers'));
  return [
    containers.map((c) => str(at(c, 'name'))).join(','),
    containers.map((c) => str(at(c, 'image'))).join(','),
    formatLabelSelector(at(o, 'spec', 'selector')),
  ];
}
