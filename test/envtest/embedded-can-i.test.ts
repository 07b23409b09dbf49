/**
 * The embedded API server's RBAC against a real kube-apiserver's: `kubectl auth can-i --list
 * --as=system:serviceaccount:openshift-machine-config-operator:machine-config-daemon` on both, with
 * deploy/ applied to the real one (the embedded server keeps deploy/'s RBAC itself), must give the
 * same resource rows in the MCO namespace and in `default`. Self-review rows are left out: v1.26's
 * `system:basic-user` has no selfsubjectreviews, 1.28+ (what the embedded server reports being)
 * has. Runs when MCO_TEST_KUBE_APISERVER names a kube-apiserver binary; skipped otherwise.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McoNamespace } from '../../src/api/machineconfiguration/v1/constants.js';
import { kubectl, startApiServer, type ApiServerProcess } from '../e2e/apiserver-harness.js';
import { KubeApiserverEnv, TestKubeApiServer } from '../support/kube-apiserver.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { parseCanIList, rowLines } from './granted-rules.js';

const binary = process.env[KubeApiserverEnv] ?? '';
const suite = binary === '' ? describe.skip : describe;
const DeployDir = fileURLToPath(new URL('../../deploy', import.meta.url));
const DaemonSa = `system:serviceaccount:${McoNamespace}:machine-config-daemon`;

const mcoRows = (text: string): string[] =>
  rowLines(parseCanIList(text)).filter((row) => !row.startsWith('selfsubject'));

suite('the embedded server’s RBAC agrees with a real kube-apiserver', () => {
  let kas: TestKubeApiServer;
  let embedded: ApiServerProcess;
  let tmp: TmpDir;

  beforeAll(async () => {
    tmp = makeTmpDir('mco-envtest-can-i-');
    [kas, embedded] = await Promise.all([TestKubeApiServer.start({ binary }), startApiServer()]);
    await kas.kubectlOk(['apply', '-R', '-f', DeployDir]);
  }, 180_000);

  afterAll(async () => {
    await (embedded as ApiServerProcess | undefined)?.dispose();
    await (kas as TestKubeApiServer | undefined)?.dispose();
    (tmp as TmpDir | undefined)?.remove();
  }, 60_000);

  it.each([McoNamespace, 'default'])(
    'kubectl auth can-i --list as machine-config-daemon, namespace %s',
    async (namespace) => {
      const args = ['auth', 'can-i', '--list', `--as=${DaemonSa}`, '-n', namespace];
      const real = await kas.kubectlOk(args);
      const ours = await kubectl(args, {
        kubeconfig: embedded.kubeconfig('admin'),
        cacheDir: join(tmp.path, `cache-${namespace}`),
      });
      expect(ours.code).toBe(0);
      expect(mcoRows(ours.stdout)).toEqual(mcoRows(real));
      expect(mcoRows(real).length).toBeGreaterThan(5);
    },
  );
});
