import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { customResourceDefinitions } from '../api/crds.js';
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import { ClusterScopedEventNamespace } from '../runtime/event-recorder.js';
import type { ManifestObject } from '../lib/manifests.js';
import { loadManifests } from '../shell/load-manifests.js';
import { shippedCustomResourceDefinitions } from '../deploy/deploy-files.js';
import { manifestDifferences, writeManifests } from './manifests-command.js';

const DeployDir = fileURLToPath(new URL('../../deploy', import.meta.url));
const silent = { out: () => undefined, err: () => undefined };
const scratch: string[] = [];

afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mco-manifests-'));
  scratch.push(dir);
  return dir;
}

const objects = (): ManifestObject[] => loadManifests([DeployDir]);
const ofKind = (kind: string): ManifestObject[] => objects().filter((o) => o.kind === kind);
const meta = (o: ManifestObject) => o.metadata as { name: string; namespace?: string };

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

describe('mco manifests', () => {
  it('the checked-in deploy/ is what the code generates (run `mco manifests` after changing it)', () => {
    expect(manifestDifferences(DeployDir)).toEqual([]);
  });

  it('writes a folder that then checks clean; a changed, missing or stale file is reported', () => {
    const dir = tmp();
    writeManifests(dir, silent);
    expect(manifestDifferences(dir)).toEqual([]);
    writeFileSync(join(dir, '00-namespace.yaml'), 'kind: Namespace\n');
    rmSync(join(dir, 'crds/machineconfigs.machineconfiguration.openshift.io.yaml'));
    writeFileSync(join(dir, 'crds/old.yaml'), 'kind: ConfigMap\n');
    writeFileSync(join(dir, 'README.md'), 'not generated, not checked\n');
    expect(manifestDifferences(dir)).toEqual([
      'crds/machineconfigs.machineconfiguration.openshift.io.yaml: missing',
      '00-namespace.yaml: differs',
      'crds/old.yaml: not generated (stale)',
    ]);
    writeManifests(dir, silent);
    expect(manifestDifferences(dir)).toEqual([]);
    expect(existsSync(join(dir, 'crds/old.yaml'))).toBe(false);
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
  });

  it('ships a CRD for every custom kind the embedded server serves but machine-api’s, and no object of those kinds', () => {
    const served = customResourceDefinitions().map((c) => c.metadata.name ?? '');
    const shipped = ofKind('CustomResourceDefinition').map((o) => meta(o).name);
    expect(shipped).toEqual(
      expect.arrayContaining(shippedCustomResourceDefinitions().map((c) => c.metadata.name)),
    );
    expect(served.filter((n) => !shipped.includes(n))).toEqual(['machines.machine.openshift.io']);
    const customKinds = new Set(
      customResourceDefinitions().map((c) => `${c.spec.group}/${c.spec.names.kind}`),
    );
    const ofCustomKind = objects().filter((o) =>
      customKinds.has(`${(o.apiVersion ?? '').split('/')[0] ?? ''}/${o.kind ?? ''}`),
    );
    expect(ofCustomKind).toEqual([]);
  });

  it('puts namespaced objects only in namespaces deploy/ creates or every cluster has', () => {
    const created = ofKind('Namespace').map((o) => meta(o).name);
    expect(created).toEqual([McoNamespace]);
    const used = new Set(
      objects()
        .map((o) => meta(o).namespace)
        .filter((n) => n !== undefined),
    );
    expect([...used].sort()).toEqual([ClusterScopedEventNamespace, McoNamespace].sort());
  });

  it('gives every workload a ServiceAccount of its own and binds only roles that exist', () => {
    const accounts = new Set(ofKind('ServiceAccount').map((o) => meta(o).name));
    for (const w of [...ofKind('Deployment'), ...ofKind('DaemonSet')]) {
      const spec = (w['spec'] as { template: { spec: { serviceAccountName?: string } } }).template
        .spec;
      expect(spec.serviceAccountName).toBe(meta(w).name);
      expect(accounts.has(spec.serviceAccountName ?? '')).toBe(true);
    }
    const clusterRoles = new Set([
      ...ofKind('ClusterRole').map((o) => meta(o).name),
      // built into every cluster
      'cluster-admin',
      'system:node-bootstrapper',
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    ]);
    const roles = new Set(ofKind('Role').map((o) => `${meta(o).namespace ?? ''}/${meta(o).name}`));
    for (const b of [...ofKind('ClusterRoleBinding'), ...ofKind('RoleBinding')]) {
      const ref = b['roleRef'] as { kind: string; name: string };
      const known =
        ref.kind === 'ClusterRole'
          ? clusterRoles.has(ref.name)
          : roles.has(`${meta(b).namespace ?? ''}/${ref.name}`);
      expect(known, `${b.kind ?? ''} ${meta(b).name} → ${ref.kind} ${ref.name}`).toBe(true);
      for (const s of b['subjects'] as { kind: string; name: string }[])
        if (s.kind === 'ServiceAccount') expect(accounts.has(s.name)).toBe(true);
    }
  });

  it("grants the daemon no Node writes and no evictions: its Node is written as the node, drains are the controller's", () => {
    const role = ofKind('ClusterRole').find((o) => meta(o).name === 'machine-config-daemon');
    const rules = (role?.['rules'] ?? []) as Rule[];
    const core = rules.filter((r) => r.apiGroups.includes(''));
    expect(core).toEqual([
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    ]);
  });

  it('puts machineconfigurations in operator.openshift.io', () => {
    const rules = ofKind('ClusterRole').flatMap((o) => (o['rules'] ?? []) as Rule[]);
    const withIt = rules.filter((r) => r.resources.includes('machineconfigurations'));
    expect(withIt.length).toBeGreaterThan(0);
    for (const r of withIt) expect(r.apiGroups).toEqual(['operator.openshift.io']);
  });
});
