/**
 * policy/v1 PodDisruptionBudget: namespaced, with a status subresource; tracks generation, starts
 * with the zero status Go marshals, validated by pdb-validation.ts; the printer of `kubectl get pdb`.
 */
import { PodDisruptionBudgetSchema } from '../../api/policy/v1/pod-disruption-budget.js';
import { at, num } from '../http/json-access.js';
import { age, intOrStringCell, name } from '../http/printer-cells.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import { podDisruptionBudgetErrors } from '../store/pdb-validation.js';
import { byType } from '../store/list-strategy.js';
import type { BuiltInKind } from './built-in-kind.js';

const podDisruptionBudgetPrinter: Printer = {
  columns: [
    NameColumn,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column(
      'Allowed Disruptions',
      'integer',
      'Calculated number of pods that may be disrupted at this time.',
    ),
    AgeColumn,
  ],
  row(pdb, now) {
    return {
      cells: [
        name(pdb),
        intOrStringCell(at(pdb, 'spec', 'minAvailable')),
        intOrStringCell(at(pdb, 'spec', 'maxUnavailable')),
        num(at(pdb, 'status', 'disruptionsAllowed')),
        age(pdb, now),
      ],
    };
  },
};

export const PolicyPodDisruptionBudget: BuiltInKind = {
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  namespaced: true,
  schema: PodDisruptionBudgetSchema,
  shortNames: ['pdb'],
  subresources: ['status'],
  strategy: {
    tracksGeneration: true,
    // policy/v1's zero-value status, as Go marshals an empty status struct
    statusOnCreate: () => ({
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    }),
    validate: podDisruptionBudgetErrors,
  },
  printer: podDisruptionBudgetPrinter,
  mergeKeys: { 'status.conditions': byType },
};
