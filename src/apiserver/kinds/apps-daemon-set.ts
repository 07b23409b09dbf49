/**
 * apps/v1 DaemonSet: namespaced, in `kubectl get all`, with a status subresource; tracks
 * generation and starts with the zero status Go marshals; the printer of `kubectl get ds`; the pod
 * template's merge keys.
 */
import { DaemonSetSchema } from '../../api/apps/v1/daemon-set.js';
import { at, formatLabels, num, record } from '../http/json-access.js';
import { age, name, podTemplateCells, podTemplateColumns } from '../http/printer-cells.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import { byType, podTemplateMergeKeys } from '../store/list-strategy.js';
import type { BuiltInKind } from './built-in-kind.js';

const daemonSetPrinter: Printer = {
  columns: [
    NameColumn,
    column(
      'Desired',
      'integer',
      'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
    ),
    column(
      'Current',
      'integer',
      'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
    ),
    column(
      'Ready',
      'integer',
      'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
    ),
    column(
      'Up-to-date',
      'integer',
      'The total number of nodes that are running updated daemon pod',
    ),
    column(
      'Available',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    ),
    column(
      'Node Selector',
      'string',
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
    ),
    AgeColumn,
    ...podTemplateColumns(
      "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    ),
  ],
  row(ds, now) {
    const status = record(ds['status']);
    return {
      cells: [
        name(ds),
        num(status['desiredNumberScheduled']),
        num(status['currentNumberScheduled']),
        num(status['numberReady']),
        num(status['updatedNumberScheduled']),
        num(status['numberAvailable']),
        formatLabels(at(ds, 'spec', 'template', 'spec', 'nodeSelector')),
        age(ds, now),
        ...podTemplateCells(ds),
      ],
    };
  },
};

export const AppsDaemonSet: BuiltInKind = {
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  namespaced: true,
  schema: DaemonSetSchema,
  shortNames: ['ds'],
  categories: ['all'],
  subresources: ['status'],
  strategy: {
    tracksGeneration: true,
    // apps/v1's zero-value status, as Go marshals an empty status struct
    statusOnCreate: () => ({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    }),
  },
  printer: daemonSetPrinter,
  mergeKeys: { ...podTemplateMergeKeys('spec.template.'), 'status.conditions': byType },
};
