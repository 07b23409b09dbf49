/**
 * MachineConfigPools (upstream syncMachineConfigPools): the built-in pools exist with upstream's
 * labels (their spec is the administrator's), and every pool has its pointer Ignition Secret
 * `openshift-machine-api/<pool>-user-data-managed`, trusting the MCS's current CA bundle. A cluster
 * without that namespace has no machine API to read them: the Secrets are skipped and the
 * ClusterOperator says why.
 */
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import type { Namespace } from '../../api/core/v1/namespace.js';
import { McsCertificateObjects } from '../../logic/certificates/mcs-cert-rotation.js';
import type { Secret } from '../../api/core/v1/secret.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { Resources } from '../../api/resource-refs.js';
import { liveGet } from '../../runtime/live-get.js';
import { OperatorTask } from '../../logic/operator/cluster-operator-status.js';
import { enforceBuiltInPoolMetadata, OperatorPools } from '../../logic/operator/pool-metadata.js';
import {
  NoMachineApiNotice,
  updatedUserDataSecret,
  userDataSecret,
  UserDataSecretNamespace,
} from '../../logic/operator/user-data-secret.js';
import { builtInPool } from '../../logic/pools/built-in-pools.js';
import { describePointerConfigError } from '../../logic/pointer-config.js';
import { Done, type OperatorStep, type RoundContext, type TaskOutcome } from '../operator-task.js';

/** Creates the pool; undefined when someone else just did. */
async function createIfMissing(
  ctx: RoundContext,
  pool: MachineConfigPool,
): Promise<MachineConfigPool | undefined> {
  try {
    return await ctx.deps.client.create(Resources.machineConfigPool, pool, { signal: ctx.signal });
  } catch (e) {
    if (!isStatusError(e, 'AlreadyExists')) throw e;
    return undefined;
  }
}

async function ensureBuiltInPools(ctx: RoundContext): Promise<MachineConfigPool[]> {
  const { client, log } = ctx.deps;
  const created: MachineConfigPool[] = [];
  for (const name of OperatorPools) {
    const existing = await liveGet<MachineConfigPool>({
      client,
      ref: Resources.machineConfigPool,
      name,
      namespace: undefined,
      signal: ctx.signal,
    });
    if (existing === undefined) {
      const pool = await createIfMissing(ctx, builtInPool(name));
      if (pool !== undefined) {
        created.push(pool);
        log.info('created built-in pool', { pool: name });
      }
      continue;
    }
    const update = enforceBuiltInPoolMetadata(existing, name);
    if (update !== undefined)
      await client.update(Resources.machineConfigPool, update, { signal: ctx.signal });
  }
  return created;
}

/**
 * The CAs new machines must trust the MCS with: the rotator's bundle (every MCS CA still valid)
 * when there is one, as upstream renders the Secrets with it; else `--mcs-ca-file`'s.
 */
async function mcsCaBundle(ctx: RoundContext): Promise<Uint8Array> {
  const bundle = await liveGet<ConfigMap>({
    client: ctx.deps.client,
    ref: Resources.configMap,
    name: McsCertificateObjects.bundleConfigMap,
    namespace: McsCertificateObjects.namespace,
    signal: ctx.signal,
  });
  const text = bundle?.data?.['ca-bundle.crt'] ?? '';
  return text === '' ? ctx.deps.config.machineConfigServer.caBundle : Buffer.from(text, 'utf8');
}

async function ensureUserData(ctx: RoundContext, pool: MachineConfigPool): Promise<TaskOutcome> {
  const { client, config } = ctx.deps;
  const mcs = config.machineConfigServer;
  const desired = userDataSecret({
    pool,
    serverUrl: mcs.url,
    caBundle: await mcsCaBundle(ctx),
    ...(mcs.token === undefined ? {} : { token: mcs.token }),
  });
  if (!desired.ok) return { kind: 'Failed', message: describePointerConfigError(desired.error) };
  const name = desired.value.metadata.name ?? '';
  const existing = await liveGet<Secret>({
    client,
    ref: Resources.secret,
    name,
    namespace: UserDataSecretNamespace,
    signal: ctx.signal,
  });
  if (existing === undefined) {
    try {
      await client.create<Secret>(Resources.secret, desired.value, { signal: ctx.signal });
    } catch (e) {
      if (!isStatusError(e, 'AlreadyExists')) throw e;
    }
    return Done;
  }
  const update = updatedUserDataSecret(existing, desired.value);
  if (update !== undefined) await client.update(Resources.secret, update, { signal: ctx.signal });
  return Done;
}

/** Whether the machine API's namespace exists; records the notice when it changes. */
async function hasMachineApi(ctx: RoundContext): Promise<boolean> {
  const ns = await liveGet<Namespace>({
    client: ctx.deps.client,
    ref: Resources.namespace,
    name: UserDataSecretNamespace,
    namespace: undefined,
    signal: ctx.signal,
  });
  const absent = ns === undefined;
  const noted = NoMachineApiNotice.key in ctx.notices;
  if (absent && !noted) {
    ctx.notices[NoMachineApiNotice.key] = NoMachineApiNotice.message;
    ctx.deps.log.info(NoMachineApiNotice.message);
  } else if (!absent && noted) {
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
    delete ctx.notices[NoMachineApiNotice.key];
    ctx.deps.log.info(`namespace ${UserDataSecretNamespace} found: writing pointer Secrets`);
  }
  return !absent;
}

export const poolsStep: OperatorStep = {
  task: OperatorTask.MachineConfigPools,
  async run(ctx: RoundContext): Promise<TaskOutcome> {
    const created = await ensureBuiltInPools(ctx);
    if (!(await hasMachineApi(ctx))) return Done;
    const pools = new Map(ctx.deps.caches.pools.list().map((p) => [p.metadata.name ?? '', p]));
    for (const p of created) pools.set(p.metadata.name ?? '', p);
    for (const pool of [...pools.values()]) {
      if (pool.metadata.deletionTimestamp !== undefined) continue;
      const outcome = await ensureUserData(ctx, pool);
      if (outcome.kind !== 'Done') return outcome;
    }
    return Done;
  },
};
