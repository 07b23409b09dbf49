/**
 * bench/render: render one pool from N MachineConfigs with F files each (default 1,000 × 10) with
 * the subject's renderer, against JSON.parse + JSON.stringify of the same MachineConfigs, in the
 * same repeat. The render runs in this process (the subject's dist/ loaded by dynamic import), so
 * there is no load generator: the bench runs on the system core.
 *
 * Row P1: µs per MachineConfig, render against the baseline; goal ≤ 2×.
 * Row P1 re-render: the same as the render controller does it when it renders again with no
 * MachineConfig changed (a pool or the ControllerConfig changed): with the validations it kept
 * per uid and resourceVersion (src/logic/render/validation-cache.ts), or, for a checkout without
 * that cache, exactly the first render again.
 *
 * Run: node dist/bench/render.js [--configs 1000 --files 10 --rounds 5] [--mco DIR]… [--repeats 3]
 */
import { parseArgs } from 'node:util';
import type { MachineConfig } from '../src/api/machineconfiguration/v1/machine-config.js';
import type * as BuiltInPools from '../src/logic/pools/built-in-pools.js';
import type * as RenderPool from '../src/logic/render/render-pool.js';
import type * as ValidationCache from '../src/logic/render/validation-cache.js';
import type * as Version from '../src/version.js';
import { Bench, BenchOptions } from './support/bench-harness.js';

const { values } = parseArgs({
  options: {
    ...BenchOptions,
    configs: { type: 'string', default: '1000' },
    files: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
  },
});
const ConfigCount = Number(values.configs);
const FilesPerConfig = Number(values.files);
/** Timings per repeat (after one warm-up); the repeat's figure is their median. */
const Rounds = Math.max(1, Number(values.rounds));

function makeConfigs(): MachineConfig[] {
  const configs: MachineConfig[] = [];
  for (let i = 0; i < ConfigCount; i++) {
    const files = Array.from({ length: FilesPerConfig }, (_, j) => ({
      path: `/etc/bench/${String(i).padStart(4, '0')}/file-${j}.conf`,
      mode: 420,
      overwrite: true,
      contents: { source: `data:,setting%3D${i}-${j}%0Aother%3Dvalue%0A` },
    }));
    configs.push({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: {
        name: `50-bench-${String(i).padStart(4, '0')}`,
        uid: `bench-${i}`,
        resourceVersion: '1',
        labels: { 'machineconfiguration.openshift.io/role': 'worker' },
      },
      spec: {
        config: { ignition: { version: '3.2.0' }, storage: { files } },
        kernelArguments: [`bench.k${i}=1`],
      },
    });
  }
  return configs;
}

function timeMs(f: () => void): number {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The median of `Rounds` timings of `f`, after one untimed call. */
function medianMs(f: () => void): number {
  f();
  const times = Array.from({ length: Rounds }, () => timeMs(f)).sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const bench = Bench.open('render', values);
bench.cores.pinSelf('system');
bench.describe(
  `render one pool from ${ConfigCount} MachineConfigs × ${FilesPerConfig} files, in process (median of ${Rounds} timings per repeat)`,
);
const configs = makeConfigs();
await bench.run(async ({ subject }) => {
  const { renderPool } = await subject.import<typeof RenderPool>('src/logic/render/render-pool.js');
  const { builtInPool } = await subject.import<typeof BuiltInPools>(
    'src/logic/pools/built-in-pools.js',
  );
  const { McoVersion } = await subject.import<typeof Version>('src/version.js');
  const pool = builtInPool('worker');
  const render = (): void => {
    const r = renderPool({ pool, configs, version: McoVersion, enforceVersionGates: false });
    if (!r.ok) throw new Error(`render failed: ${JSON.stringify(r.error)}`);
  };
  // Checkouts from before the cache have no such module: their controller renders in full again.
  const cacheModule = await subject
    .import<typeof ValidationCache>('src/logic/render/validation-cache.js')
    .catch(() => undefined);
  const validations =
    cacheModule === undefined ? undefined : new cacheModule.MachineConfigValidationCache();
  const rerender = (): void => {
    const r = renderPool({
      pool,
      configs,
      version: McoVersion,
      enforceVersionGates: false,
      ...(validations === undefined ? {} : { validations }),
    });
    if (!r.ok) throw new Error(`render failed: ${JSON.stringify(r.error)}`);
  };
  const baseline = (): void => {
    JSON.parse(JSON.stringify(configs));
  };
  const baselineMs = medianMs(baseline);
  const renderMs = medianMs(render);
  const rerenderMs = medianMs(rerender);
  return {
    render: (renderMs * 1000) / ConfigCount,
    rerender: (rerenderMs * 1000) / ConfigCount,
    baseline: (baselineMs * 1000) / ConfigCount,
  };
});
bench.report([
  {
    id: 'P1',
    measure: `render ${ConfigCount} MCs × ${FilesPerConfig} files`,
    unit: 'µs per MC',
    ours: 'render',
    baseline: { label: 'JSON parse+stringify', key: 'baseline' },
    goal: { on: 'ratio', op: '<=', value: 2 },
  },
  {
    id: 'P1',
    measure: `re-render ${ConfigCount} MCs × ${FilesPerConfig} files, none changed (controller)`,
    unit: 'µs per MC',
    ours: 'rerender',
    baseline: { label: 'JSON parse+stringify', key: 'baseline' },
    goal: { on: 'ratio', op: '<=', value: 2 },
  },
]);
