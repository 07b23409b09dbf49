import { describe, expect, it } from 'vitest';
import { ResourceTypeRegistry } from '../resource-types.js';
import type { KubeObject } from '../resource-store.js';
import {
  matchesFieldRequirements,
  parseFieldSelector,
  selectableFields,
} from './field-selectors.js';

const registry = new ResourceTypeRegistry();
const type = (group: string, kind: string) => registry.byKind(group, kind)!;

describe('parseFieldSelector', () => {
  it.each([
    ['metadata.name=worker', [{ field: 'metadata.name', operator: '=', value: 'worker' }]],
    ['metadata.name==worker', [{ field: 'metadata.name', operator: '=', value: 'worker' }]],
    ['metadata.name!=worker', [{ field: 'metadata.name', operator: '!=', value: 'worker' }]],
    ['metadata.namespace=', [{ field: 'metadata.namespace', operator: '=', value: '' }]],
    ['metadata.name=a\\,b', [{ field: 'metadata.name', operator: '=', value: 'a,b' }]],
    ['', []],
  ])('parses %j for custom resources', (input, expected) => {
    expect(
      parseFieldSelector(type('machineconfiguration.openshift.io', 'MachineConfigPool'), input),
    ).toEqual({
      ok: true,
      value: expected,
    });
  });

  it('sorts terms and maps spec.host to spec.nodeName for pods', () => {
    const r = parseFieldSelector(type('', 'Pod'), 'status.phase!=Failed,spec.host=n1');
    expect(r).toEqual({
      ok: true,
      value: [
        { field: 'spec.nodeName', operator: '=', value: 'n1' },
        { field: 'status.phase', operator: '!=', value: 'Failed' },
      ],
    });
  });

  it.each([
    [
      'MachineConfigPool',
      'machineconfiguration.openshift.io',
      'spec.foo=bar',
      '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [
      'Lease',
      'coordination.k8s.io',
      'spec.holderIdentity=x',
      '"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    ['Pod', '', 'spec.foo=bar', 'field label not supported: spec.foo'],
    ['Node', '', 'metadata.namespace=x', 'field label not supported: metadata.namespace'],
    ['Event', '', 'involvedObject.foo=x', 'field label not supported: involvedObject.foo'],
    [
      'Pod',
      '',
      'spec.nodeName',
      "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'",
    ],
    ['Pod', '', 'spec.nodeName=a\\b', 'invalid field selector: invalid escape sequence: \\b'],
    ['Pod', '', 'spec.nodeName=a=b', 'invalid field selector: unescaped character in value: 61'],
  ])('%s rejects %j', (kind, group, input, message) => {
    expect(parseFieldSelector(type(group, kind), input)).toEqual({ ok: false, error: message });
  });
});

describe('selectableFields', () => {
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { nodeName: 'n1', hostNetwork: true },
    status: { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] },
  };

  it('covers what drain and describe select on', () => {
    const fields = selectableFields(type('', 'Pod'), pod);
    expect(fields).toMatchObject({
      'metadata.name': 'p',
      'metadata.namespace': 'default',
      'spec.nodeName': 'n1',
      'spec.hostNetwork': 'true',
      'status.phase': 'Running',
      'status.podIPs': '10.0.0.1,fd00::1',
    });
    const drain = parseFieldSelector(
      type('', 'Pod'),
      'spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed',
    );
    expect(drain.ok && matchesFieldRequirements(drain.value, fields)).toBe(true);
  });

  it('gives events their involvedObject fields, an empty namespace matching ""', () => {
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'MachineConfigPool', name: 'worker', uid: 'u1' },
      reason: 'SetDesiredConfig',
      source: { component: 'machineconfigcontroller-nodecontroller' },
    };
    const fields = selectableFields(type('', 'Event'), event);
    const sel = parseFieldSelector(
      type('', 'Event'),
      'involvedObject.name=worker,involvedObject.namespace=,involvedObject.kind=MachineConfigPool,involvedObject.uid=u1',
    );
    expect(sel.ok && matchesFieldRequirements(sel.value, fields)).toBe(true);
    expect(fields['source']).toBe('machineconfigcontroller-nodecontroller');
  });

  it('prints node spec.unschedulable as true/false', () => {
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } };
    expect(selectableFields(type('', 'Node'), node)['spec.unschedulable']).toBe('false');
  });
});
