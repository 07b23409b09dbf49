/**
 * bench/osimage: how long a node takes to get onto an OS image of about 50 MB (a bootable
 * container image whose layers are the OS tree), the subject's way against the tools by hand, in
 * the same repeat against the same registry.
 *
 * - ours: the subject's OS image fetcher (registry-os-image-fetcher.ts: each layer streamed by
 *   digest through our registry client, verified, unpacked and committed at its blob ref, then the
 *   layers checked out with whiteouts into the merge commit), run in this process, and then the
 *   deploy the node supervisor does at the reboot (`ostree admin deploy`);
 * - by hand: `skopeo copy` of the image into an OCI layout, `tar -xzf` of each layer into one
 *   folder, `etc` moved to `usr/etc`, `ostree commit` of that tree into the node's repository,
 *   `ostree admin deploy`.
 *
 * Both sides run on the system core (this process moves there while they run; the tools it starts
 * inherit it); the registry (`docker-registry`, started here and stopped by PID) serves from the
 * load generator's core. The image is the repository's TestOS tree plus incompressible files up
 * to `--mb`, built with the subject's `mco os-image build` and pushed to the registry. Each side
 * starts from an empty sysroot and an empty pull cache; repeats alternate which side goes first.
 *
 * Run: node dist/bench/osimage.js [--mb 50] [--mco DIR]… [--repeats 3]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DistributionRegistry } from '../src/adapters/oci/distribution-registry.js';
import type * as ExecCommandRunner from '../src/adapters/exec-command-runner.js';
import type * as Ostree from '../src/adapters/ostree.js';
import type { OstreeCli } from '../src/adapters/ostree.js';
import type * as RegistryOsImageFetcher from '../src/adapters/registry-os-image-fetcher.js';
import { RepoRoot } from '../test/support/mco-processes.js';
import { Bench, BenchOptions, type Figures, type Subject } from './support/bench-harness.js';

const Ref = 'testos/x86_64/stable';
const Os = 'testos';
const Kargs = ['console=ttyS0'];

interface Side {
  readonly pull: number;
  readonly deploy: number;
}

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

async function ours(
  ostree: OstreeCli,
  createFetcher: typeof RegistryOsImageFetcher.createRegistryOsImageFetcher,
  image: string,
  scratch: string,
): Promise<Side> {
  const sysroot = await freshSysroot(ostree, join(scratch, 'sysroot'));
  const fetcher = createFetcher({ registry: {} });
  const t0 = performance.now();
  const fetched = await fetcher.fetch(image, { repo: join(sysroot, 'ostree/repo'), ostree });
  const t1 = performance.now();
  await ostree.deploy({ sysroot, osname: Os, refspec: fetched.checksum, kernelArguments: Kargs });
  const t2 = performance.now();
  return { pull: t1 - t0, deploy: t2 - t1 };
}

async function byHand(ostree: OstreeCli, image: string, scratch: string): Promise<Side> {
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
  run('mv', [join(unpacked, 'etc'), join(unpacked, 'usr/etc')]);
  const commit = run('ostree', [
    `--repo=${join(sysroot, 'ostree/repo')}`,
    'commit',
    `--branch=${Ref}`,
    `--tree=dir=${unpacked}`,
  ]).trim();
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

/** The subject's fetcher and ostree wrapper. */
async function subjectOstree(subject: Subject): Promise<{
  ostree: OstreeCli;
  fetcher: typeof RegistryOsImageFetcher.createRegistryOsImageFetcher;
}> {
  const { OstreeCli: Cli } = await subject.import<typeof Ostree>('src/adapters/ostree.js');
  const { createExecCommandRunner } = await subject.import<typeof ExecCommandRunner>(
    'src/adapters/exec-command-runner.js',
  );
  const { createRegistryOsImageFetcher } = await subject.import<typeof RegistryOsImageFetcher>(
    'src/adapters/registry-os-image-fetcher.js',
  );
  return { ostree: new Cli(createExecCommandRunner()), fetcher: createRegistryOsImageFetcher };
}

/** Builds and pushes the image with the subject's `mco os-image build` (once per subject). */
function buildImage(subject: Subject, rootfs: string, registry: string): string {
  const mco = (args: readonly string[]) => run(process.execPath, [subject.bin, ...args]).trim();
  return mco([
    'os-image',
    'build',
    '--rootfs',
    rootfs,
    '--modes',
    join(RepoRoot, 'images/rootfs/testos.modes.json'),
    '--version',
    'bench',
    '--output',
    `docker://${registry}/testos:bench-${subject.id.toLowerCase()}`,
  ]);
}

const { values } = parseArgs({
  options: { ...BenchOptions, mb: { type: 'string', default: '50' } },
});
const mb = Number(values.mb);
const bench = Bench.open('osimage', values);
const work = mkdtempSync(join(tmpdir(), 'mco-bench-osimage-'));
// started while this process is on the load core: the registry stays there
const registry = await DistributionRegistry.start({ dir: join(work, 'registry') });
try {
  const rootfs = join(work, 'rootfs');
  makeRootfs(rootfs, mb);
  const images = new Map<string, string>();
  await bench.run(async ({ subject, repeat }) => {
    let image = images.get(subject.id);
    if (image === undefined) {
      image = buildImage(subject, rootfs, registry.address);
      images.set(subject.id, image);
    }
    const { ostree, fetcher } = await subjectOstree(subject);
    const a = join(work, `repeat-${repeat}-${subject.id}-ours`);
    const b = join(work, `repeat-${repeat}-${subject.id}-hand`);
    mkdirSync(a);
    mkdirSync(b);
    bench.cores.pinSelf('system');
    let mine: Side;
    let hand: Side;
    try {
      if (repeat % 2 === 0) {
        mine = await ours(ostree, fetcher, image, a);
        hand = await byHand(ostree, image, b);
      } else {
        hand = await byHand(ostree, image, b);
        mine = await ours(ostree, fetcher, image, a);
      }
    } finally {
      bench.cores.pinSelf('load');
    }
    await ostree.removeSysroot(join(a, 'sysroot'));
    await ostree.removeSysroot(join(b, 'sysroot'));
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
    const f: Figures = {
      pull: mine.pull / 1000,
      deploy: mine.deploy / 1000,
      total: (mine.pull + mine.deploy) / 1000,
      handPull: hand.pull / 1000,
      handDeploy: hand.deploy / 1000,
      handTotal: (hand.pull + hand.deploy) / 1000,
    };
    return f;
  });
  const size = Number(run('du', ['-sb', join(work, 'registry/storage')]).split('\t')[0]);
  bench.describe(
    `import and deploy a bootable container image (TestOS + ${mb} MiB of random files; ${(size / 1024 / 1024).toFixed(1)} MiB in the registry for ${images.size} image(s)); both sides on the system core, the registry on the load core`,
  );
  const hand = (key: string) => ({ label: 'skopeo copy + tar + ostree commit by hand', key });
  bench.report([
    { id: 'OS', measure: 'import + deploy', unit: 's', ours: 'total', baseline: hand('handTotal') },
    { id: 'OS', measure: 'import', unit: 's', ours: 'pull', baseline: hand('handPull') },
    { id: 'OS', measure: 'deploy', unit: 's', ours: 'deploy', baseline: hand('handDeploy') },
  ]);
} finally {
  await registry.stop();
  rmSync(work, { recursive: true, force: true });
}
