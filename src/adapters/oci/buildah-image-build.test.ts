/**
 * On-Cluster Layering's build step against the real tools: a TestOS image with a shell (busybox)
 * pushed to a Distribution registry on loopback, the build controller's Containerfile (RUN and
 * COPY on top) built by Debian's buildah as root (vfs, chroot) and pushed by digest, and the
 * result imported into OSTree as a node would, with both files in the layered commit. A failing
 * RUN fails the build with its output in the log and pushes nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testosTree, testosWithShell } from '../../../test/support/os-images.js';
import { makeTmpDir, type TmpDir } from '../../../test/support/tmp-dir.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineOSConfig } from '../../api/machineconfiguration/v1/machine-os-config.js';
import { buildRequest, pushSpecWithDigest } from '../../controller/build/build-request.js';
import { createExecCommandRunner } from '../exec-command-runner.js';
import { readModesFile } from '../ostree-repo.js';
import { OstreeCli } from '../ostree.js';
import { pullOsImage } from '../registry-os-image-fetcher.js';
import { BuildahBuildError, runBuildahBuild } from './buildah-image-build.js';
import { DistributionRegistry } from './distribution-registry.js';
import { parseImageLocation } from './image-reference.js';
import { openSource, publishImage } from './image-locations.js';
import { imageLabels, resolveImage } from './image-reader.js';
import { OciLayout } from './oci-layout.js';
import { buildOsImage } from './os-image.js';
import { RegistryClient } from './registry-client.js';

const ostree = new OstreeCli(createExecCommandRunner());

let work: TmpDir;
let registry: DistributionRegistry;
let client: RegistryClient;
let baseImage: string;

function mosc(content: string): MachineOSConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineOSConfig',
    metadata: { name: 'worker' },
    spec: {
      machineConfigPool: { name: 'worker' },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push' },
      renderedImagePushSpec: `${registry.address}/layered:latest`,
      containerFile: [{ containerfileArch: 'NoArch', content }],
    },
  };
}

const rendered = (): MachineConfig => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfig',
  metadata: { name: 'rendered-worker-0123456789abcdef0123456789abcdef' },
  spec: { osImageURL: baseImage, config: { ignition: { version: '3.4.0' } } },
});

beforeAll(async () => {
  work = makeTmpDir('mco-buildah-');
  registry = await DistributionRegistry.start({ dir: join(work.path, 'registry') });
  client = new RegistryClient();
  // TestOS has no shell; RUN needs one inside the image.
  const rootfs = testosWithShell(join(work.path, 'rootfs'));
  const layout = new OciLayout(join(work.path, 'layout'));
  const built = await buildOsImage(layout, {
    rootfs,
    version: '1',
    modes: await readModesFile(testosTree('testos').modes),
    timestamp: 1_700_000_000,
  });
  baseImage = await publishImage({
    layout,
    image: built,
    location: parseImageLocation(`docker://${registry.address}/testos:1`),
    client,
  });
}, 120_000);

afterAll(async () => {
  client.close();
  await registry.stop();
  work.remove();
});

describe('buildah build of a MachineOSConfig', () => {
  it('builds FROM the rendered OS image with RUN and COPY, pushes by digest, and the import has both files', async () => {
    const request = buildRequest(
      mosc(
        [
          'FROM configs AS final',
          'RUN mkdir -p /usr/share/hello && echo built in the cluster > /usr/share/hello/built-in-cluster',
          'COPY machineconfig/machineconfig.json /usr/share/hello/rendered-config.json',
        ].join('\n'),
      ),
      rendered(),
    );
    expect(request.name).toMatch(/^worker-[0-9a-f]{32}$/);
    expect(request.pushSpec).toBe(`${registry.address}/layered:${request.name}`);
    const logFile = join(work.path, 'logs', `${request.name}.log`);
    const result = await runBuildahBuild({
      workDir: join(work.path, 'build-ok'),
      context: request.context,
      pushSpec: request.pushSpec,
      logFile,
      insecureRegistry: true,
    });
    expect(result.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(existsSync(join(work.path, 'build-ok'))).toBe(false);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('STEP');
    expect(log).toContain(`pushed ${request.pushSpec} as ${result.digest}`);

    const pulled = pushSpecWithDigest(request.pushSpec, result.digest);
    const { source, reference } = openSource(parseImageLocation(pulled), client);
    const image = await resolveImage(source, reference);
    expect(imageLabels(image)).toMatchObject({
      'containers.bootc': '1',
      machineconfig: 'rendered-worker-0123456789abcdef0123456789abcdef',
      machineconfigpool: 'worker',
      baseOSContainerImage: baseImage,
    });
    const repo = join(work.path, 'repo');
    mkdirSync(repo);
    await ostree.initRepo(repo, 'bare');
    const base = await pullOsImage(parseImageLocation(baseImage), client, { repo, ostree });
    const layered = await pullOsImage(parseImageLocation(pulled), client, { repo, ostree });
    // The base image's layers are reused; only buildah's are fetched.
    expect(layered.layersReused).toBe(base.layersImported);
    expect(layered.layersImported).toBeGreaterThan(0);
    const cat = (path: string) =>
      execFileSync('ostree', [`--repo=${repo}`, 'cat', layered.commit, path], { encoding: 'utf8' });
    expect(cat('/usr/share/hello/built-in-cluster')).toBe('built in the cluster\n');
    expect(JSON.parse(cat('/usr/share/hello/rendered-config.json'))).toMatchObject({
      metadata: { name: 'rendered-worker-0123456789abcdef0123456789abcdef' },
    });
    expect(JSON.parse(cat('/usr/etc/machine-config-daemon/currentconfig'))).toMatchObject({
      kind: 'MachineConfig',
    });
    expect(cat('/usr/lib/os-release')).toContain('VERSION_ID=1');
  }, 180_000);

  it('a failing RUN fails the build with its output in the log, and pushes nothing', async () => {
    const request = buildRequest(
      mosc('FROM configs AS final\nRUN echo about to fail && false'),
      rendered(),
    );
    const logFile = join(work.path, 'logs', `${request.name}.log`);
    await expect(
      runBuildahBuild({
        workDir: join(work.path, 'build-bad'),
        context: request.context,
        pushSpec: request.pushSpec,
        logFile,
        insecureRegistry: true,
      }),
    ).rejects.toThrow(BuildahBuildError);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('about to fail');
    expect(log).toMatch(/build failed: buildah bud exited \d+/);
    const tags = await fetch(`http://${registry.address}/v2/layered/tags/list`);
    const body = tags.status === 200 ? ((await tags.json()) as { tags?: string[] }) : { tags: [] };
    expect(body.tags ?? []).not.toContain(request.name);
  }, 180_000);

  it('refuses context names that leave the context', async () => {
    await expect(
      runBuildahBuild({
        workDir: join(work.path, 'build-hostile'),
        context: { '../escape': 'x', Containerfile: 'FROM scratch' },
        pushSpec: `${registry.address}/layered:x`,
        logFile: join(work.path, 'logs', 'hostile.log'),
        insecureRegistry: true,
      }),
    ).rejects.toThrow(/leaves the context/);
    expect(existsSync(join(work.path, 'escape'))).toBe(false);
  });
});
