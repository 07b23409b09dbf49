/**
 * bench/render: render one pool from 1,000 MachineConfigs with 10 files each, and compare with the
 * cost of JSON.parse + JSON.stringify of the same inputs, measured in the same run.
 * Run: npm run bench:render
 */
import type { MachineConfig } from '../src/api/machineconfiguration/v1/machine-config.js';
import { builtInPool } from '../src/logic/pools/built-in-pools.js';
import { renderPool } from '../src/logic/render/render-pool.js';
import { McoVersion } from '../src/version.js';

const ConfigCount = 1_000;
const FilesPerConfig = 10;
const Rounds = 7;

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

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

const configs = makeConfigs();
const pool = builtInPool('worker');
let name = '';
const render = (): void => {
  const r = renderPool({ pool, configs, version: McoVersion, enforceVersionGates: false });
  if (!r.ok) throw new Error('render failed');
  name = r.value.config.metadata.name ?? '';
};
const baseline = (): void => {
  JSON.parse(JSON.stringify(configs));
};

render();
baseline();
const renderTimes: number[] = [];
const baselineTimes: number[] = [];
for (let i = 0; i < Rounds; i++) {
  baselineTimes.push(timeMs(baseline));
  renderTimes.push(timeMs(render));
}
const r = median(renderTimes);
const b = median(baselineTimes);
console.log(`bench/render: ${ConfigCount} MachineConfigs x ${FilesPerConfig} files -> ${name}`);
console.log(`  render (median of ${Rounds}):                        ${r.toFixed(1)} ms`);
console.log(`  JSON.parse + JSON.stringify of inputs (baseline):   ${b.toFixed(1)} ms`);
console.log(
  `  ratio render / baseline:                            ${(r / b).toFixed(2)} (target <= 2)`,
);
