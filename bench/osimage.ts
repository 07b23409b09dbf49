/**
 * bench/osimage: how long a node takes to get onto an OS image of about 50 MB, our way against
 * the tools by hand, in the same run against the same registry.
 *
 * - ours: the daemon's OS image fetcher (registry-os-image-fetcher.ts: pull by digest through our
 *   registry client, unpack, `ostree pull-local` into the node's repository) and then the deploy
 *   the node supervisor does at the reboot (`ostree admin deploy`);
 * - by hand: `skopeo copy` of the image into an OCI layout, `tar -xzf` of its layer, `ostree
 *   pull-local` of the commit, `ostree admin deploy`.
 *
 * The image is the repository's TestOS tree plus incompressible files up to `--mb`, built and pushed
 * with `mco os-image build` into a Distribution registry on loopback (`docker-registry`, started
 * here and stopped by PID). Each round starts from empty sysroots and an empty pull cache; rounds
 * alternate which side goes first. Prints each round and the medians with their ratio.
 *
 * Run: npm run bench:osimage [-- --mb 50 --rounds 3]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DistributionRegistry } from '../src/adapters/oci/distribution-registry.js';
import { createExecCommandRunner } from '../src/adapters/exec-command-runner.js';
import { OstreeCli } from '../src/adapters/ostree.js';
import { createRegistryOsImageFetcher } from '../src/adapters/registry-os-image-fetcher.js';
import { McoBin, RepoRoot } from '../test/support/mco-processes.js';

const Ref = 'testos/x86_64/stable';
const Os = 'testos';
const Kargs = ['console=ttyS0'];

interface Side {
  readonly pull: number;
  readonly deploy: number;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

function run(cmd: string, args: readonly string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/** The TestOS tree plus `mb` MiB of random files (so the layer does not compress away). */
function makeRootfs(dir: string, mb: number): void {
  cpSync(join(RepoRoot, 'images/rootfs/testos'), dir, { recursive: true, verbatimSymlinks: true });
  const blobs = join(dir, 'usr/share/bench');
  mkdirSync(blobs, { recursive: true });
  for (let i = 0; i < mb; i++) writeFileSync(join(blobs, `blob-${i}`), randomBytes(1024 * 1024));
}

async function freshSysroot(ostree: OstreeCli, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  await ostree.initSysroot(dir, Os);
  return dir;
}

async function ours(ostree: OstreeCli, image: string, scratch: string): Promise<Side> {
  const sysroot = await freshSysroot(ostree, join(scratch, 'sysroot'));
  const fetcher = createRegistryOsImageFetcher({ cacheDir: join(scratch, 'cache'), registry: {} });
  const t0 = performance.now();
  const fetched = await fetcher.fetch(image, { repo: join(sysroot, 'ostree/repo'), ostree });
  const t1 = performance.now();
  await ostree.deploy({ sysroot, osname: Os, refspec: fetched.checksum, kernelArguments: Kargs });
  const t2 = performance.now();
  return { pull: t1 - t0, deploy: t2 - t1 };
}

async function byHand(
  ostree: OstreeCli,
  image: string,
  commit: string,
  scratch: string,
): Promise<Side> {
  const sysroot = await freshSysroot(ostree, join(scratch, 'sysroot'));
  const layout = join(scratch, 'layout');
  const unpacked = join(scratch, 'unpacked');
  mkdirSync(unpacked);
  const t0 = performance.now();
  run('skopeo', [
    'copy',
    '--quiet',
    '--src-tls-verify=false',
    `docker://${image}`,
    `oci:${layout}:os`,
  ]);
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as {
    manifests: { digest: string }[];
  };
  const manifestDigest = index.manifests[0]?.digest ?? '';
  const manifest = JSON.parse(
    readFileSync(join(layout, 'blobs/sha256', manifestDigest.slice('sha256:'.length)), 'utf8'),
  ) as { layers: { digest: string }[] };
  for (const l of manifest.layers)
    run('tar', [
      '-xzf',
      join(layout, 'blobs/sha256', l.digest.slice('sha256:'.length)),
      '-C',
      unpacked,
    ]);
  run('ostree', [
    `--repo=${join(sysroot, 'ostree/repo')}`,
    'pull-local',
    join(unpacked, 'ostree/repo'),
    commit,
  ]);
  const t1 = performance.now();
  run('ostree', [
    'admin',
    'deploy',
    `--sysroot=${sysroot}`,
    `--os=${Os}`,
    '--karg-none',
    ...Kargs.map((k) => `--karg-append=${k}`),
    commit,
  ]);
  const t2 = performance.now();
  return { pull: t1 - t0, deploy: t2 - t1 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { mb: { type: 'string', default: '50' }, rounds: { type: 'string', default: '3' } },
  });
  const mb = Number(values.mb);
  const rounds = Number(values.rounds);
  const work = mkdtempSync(join(tmpdir(), 'mco-bench-osimage-'));
  const ostree = new OstreeCli(createExecCommandRunner());
  const registry = await DistributionRegistry.start({ dir: join(work, 'registry') });
  try {
    const rootfs = join(work, 'rootfs');
    makeRootfs(rootfs, mb);
    const image = run(process.execPath, [
      McoBin,
      'os-image',
      'build',
      '--rootfs',
      rootfs,
      '--modes',
      join(RepoRoot, 'images/rootfs/testos.modes.json'),
      '--version',
      'bench',
      '--ref',
      Ref,
      '--output',
      `docker://${registry.address}/testos:bench`,
    ]).trim();
    const info = JSON.parse(
      run(process.execPath, [McoBin, 'os-image', 'inspect', image, '-o', 'json']),
    ) as { commit: string; layers: string[] };
    const size = Number(run('du', ['-sb', join(work, 'registry/storage')]).split('\t')[0]);
    console.log(`OS image ${image}`);
    console.log(`  commit ${info.commit}, ${(size / 1024 / 1024).toFixed(1)} MiB in the registry`);
    const mine: Side[] = [];
    const hand: Side[] = [];
    for (let r = 0; r < rounds; r++) {
      const a = join(work, `round-${r}-ours`);
      const b = join(work, `round-${r}-hand`);
      mkdirSync(a);
      mkdirSync(b);
      if (r % 2 === 0) {
        mine.push(await ours(ostree, image, a));
        hand.push(await byHand(ostree, image, info.commit, b));
      } else {
        hand.push(await byHand(ostree, image, info.commit, b));
        mine.push(await ours(ostree, image, a));
      }
      const m = mine[r] as Side;
      const h = hand[r] as Side;
      console.log(
        `round ${r + 1}: ours pull ${seconds(m.pull)} + deploy ${seconds(m.deploy)} = ${seconds(m.pull + m.deploy)}; ` +
          `by hand pull ${seconds(h.pull)} + deploy ${seconds(h.deploy)} = ${seconds(h.pull + h.deploy)}`,
      );
      await ostree.removeSysroot(join(a, 'sysroot'));
      await ostree.removeSysroot(join(b, 'sysroot'));
    }
    const ourTotal = median(mine.map((s) => s.pull + s.deploy));
    const handTotal = median(hand.map((s) => s.pull + s.deploy));
    console.log(
      `median ours:    pull ${seconds(median(mine.map((s) => s.pull)))}, deploy ${seconds(median(mine.map((s) => s.deploy)))}, total ${seconds(ourTotal)}`,
    );
    console.log(
      `median by hand: pull ${seconds(median(hand.map((s) => s.pull)))}, deploy ${seconds(median(hand.map((s) => s.deploy)))}, total ${seconds(handTotal)}`,
    );
    console.log(`ratio ours / by hand: ${(ourTotal / handTotal).toFixed(2)}`);
  } finally {
    await registry.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
