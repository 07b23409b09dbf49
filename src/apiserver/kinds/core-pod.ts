/**
 * core/v1 Pod: namespaced, in `kubectl get all`, with the status, eviction and log subresources; a
 * new pod starts `Pending`; the printer is pod-printer.ts; the PodSpec's merge keys; the field
 * selectors a kubelet and a drain use (`spec.nodeName`, `status.phase`, ...).
 */
import { PodSchema } from '../../api/core/v1/pod.js';
import type { KubeObject } from '../resource-store.js';
import { podPrinter } from '../http/pod-printer.js';
import { isJsonMap, readPath } from '../store/json.js';
import { byType, podSpecMergeKeys } from '../store/list-strategy.js';
import type { BuiltInKind } from './built-in-kind.js';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function podFields(obj: KubeObject): Record<string, string> {
  const at = (...path: string[]): string => text(readPath(obj, path));
  const ips = readPath(obj, ['status', 'podIPs']);
  return {
    'spec.nodeName': at('spec', 'nodeName'),
    'spec.restartPolicy': at('spec', 'restartPolicy'),
    'spec.schedulerName': at('spec', 'schedulerName'),
    'spec.serviceAccountName': at('spec', 'serviceAccountName'),
    'spec.hostNetwork': String(readPath(obj, ['spec', 'hostNetwork']) === true),
    'status.phase': at('status', 'phase'),
    'status.podIP': at('status', 'podIP'),
    'status.podIPs': Array.isArray(ips)
      ? ips.map((ip: unknown) => (isJsonMap(ip) ? text(ip['ip']) : '')).join(',')
      : '',
    'status.nominatedNodeName': at('status', 'nominatedNodeName'),
  };
}

export const CorePod: BuiltInKind = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
  schema: PodSchema,
  shortNames: ['po'],
  categories: ['all'],
  subresources: ['status', 'eviction', 'log'],
  strategy: { statusOnCreate: () => ({ phase: 'Pending' }) },
  printer: podPrinter,
  mergeKeys: {
    ...podSpecMergeKeys('spec.'),
    'status.conditions': byType,
    'status.podIPs': { mergeKey: 'ip' },
  },
  fieldSelectors: {
    fields: [
      'metadata.name',
      'metadata.namespace',
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.podIPs',
      'status.nominatedNodeName',
    ],
    // `spec.host` is the pre-1.0 name of spec.nodeName
    aliases: { 'spec.host': 'spec.nodeName' },
    values: podFields,
  },
};
