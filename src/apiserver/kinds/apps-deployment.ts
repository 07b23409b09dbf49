/**
 * apps/v1 Deployment: namespaced, in `kubectl get all`, with a status subresource. Writes default
 * the spec as SetDefaults_Deployment does (1 replica, RollingUpdate 25%/25%, 10 revisions kept,
 * 600s progress deadline), track generation and start with the empty status; `kubectl get deploy`
 * prints READY, UP-TO-DATE and AVAILABLE as printDeployment does; the pod template's lists merge
 * by their keys (containers by `name`). No controller runs: the status is what clients write.
 */
import { Type } from '@sinclair/typebox';
import { kindSchema } from '../../api/meta/v1/kind.js';
import { LabelSelectorSchema } from '../../api/meta/v1/label-selector.js';
import { Int32, Int64, IntOrString, RawObject } from '../../api/schema.js';
import type { KubeObject } from '../resource-store.js';
import { at, num, record } from '../http/json-access.js';
import { age, name, podTemplateCells, podTemplateColumns } from '../http/printer-cells.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import { isJsonMap } from '../store/json.js';
import { byType, podTemplateMergeKeys } from '../store/list-strategy.js';
import type { BuiltInKind } from './built-in-kind.js';

const DeploymentSchema = kindSchema(
  'Deployment enables declarative updates for Pods and ReplicaSets.',
  {
    spec: Type.Optional(
      Type.Object(
        {
          replicas: Type.Optional(Int32()),
          selector: LabelSelectorSchema,
          template: RawObject({
            description: 'The pod template (metadata + PodSpec), kept as is.',
          }),
          strategy: Type.Optional(
            Type.Object(
              {
                type: Type.Optional(Type.String()),
                rollingUpdate: Type.Optional(
                  Type.Object({
                    maxUnavailable: Type.Optional(IntOrString()),
                    maxSurge: Type.Optional(IntOrString()),
                  }),
                ),
              },
              { 'x-kubernetes-preserve-unknown-fields': true },
            ),
          ),
          minReadySeconds: Type.Optional(Int32()),
          revisionHistoryLimit: Type.Optional(Int32()),
          paused: Type.Optional(Type.Boolean()),
          progressDeadlineSeconds: Type.Optional(Int32()),
        },
        { 'x-kubernetes-preserve-unknown-fields': true },
      ),
    ),
    status: Type.Optional(
      Type.Object(
        {
          observedGeneration: Type.Optional(Int64()),
          replicas: Type.Optional(Int32()),
          updatedReplicas: Type.Optional(Int32()),
          readyReplicas: Type.Optional(Int32()),
          availableReplicas: Type.Optional(Int32()),
          unavailableReplicas: Type.Optional(Int32()),
          conditions: Type.Optional(Type.Array(RawObject())),
        },
        { 'x-kubernetes-preserve-unknown-fields': true },
      ),
    ),
  },
);

/** SetDefaults_Deployment (k8s.io/kubernetes pkg/apis/apps/v1/defaults.go). */
function defaultDeployment(obj: KubeObject): void {
  const spec = obj['spec'];
  if (!isJsonMap(spec)) return;
  spec['replicas'] ??= 1;
  const strategy = isJsonMap(spec['strategy']) ? spec['strategy'] : {};
  strategy['type'] ??= 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = isJsonMap(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
    rolling['maxUnavailable'] ??= '25%';
    rolling['maxSurge'] ??= '25%';
    strategy['rollingUpdate'] = rolling;
  }
  spec['strategy'] = strategy;
  spec['revisionHistoryLimit'] ??= 10;
  spec['progressDeadlineSeconds'] ??= 600;
}

const deploymentPrinter: Printer = {
  columns: [
    NameColumn,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column(
      'Up-to-date',
      'string',
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    ),
    column(
      'Available',
      'string',
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    AgeColumn,
    ...podTemplateColumns(
      'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
    ),
  ],
  row(deploy, now) {
    const status = record(deploy['status']);
    return {
      cells: [
        name(deploy),
        `${num(status['readyReplicas'])}/${num(at(deploy, 'spec', 'replicas'))}`,
        num(status['updatedReplicas']),
        num(status['availableReplicas']),
        age(deploy, now),
        ...podTemplateCells(deploy),
      ],
    };
  },
};

export const AppsDeployment: BuiltInKind = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
  schema: DeploymentSchema,
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: ['status'],
  strategy: {
    tracksGeneration: true,
    // every field of apps/v1 DeploymentStatus is omitempty: the zero status marshals as {}
    statusOnCreate: () => ({}),
    normalize: defaultDeployment,
  },
  printer: deploymentPrinter,
  mergeKeys: { ...podTemplateMergeKeys('spec.template.'), 'status.conditions': byType },
};
