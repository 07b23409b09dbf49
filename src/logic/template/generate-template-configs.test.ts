import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { parseDataUrl } from '../../ignition/data-url.js';
import { parseIgnition } from '../../ignition/parse.js';
import type { IgnitionConfig } from '../../ignition/types.js';
import {
  describeTemplateError,
  generateTemplateMachineConfigs,
  type TemplateFile,
} from './generate-template-configs.js';
import { describeRenderTemplateError, renderTemplate } from './render-template.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

const TemplatesDir = fileURLToPath(new URL('../../../templates', import.meta.url));

function readTemplates(dir: string): TemplateFile[] {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((e) => {
      const p = join(d, e);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
  return walk(dir).map((p) => ({ path: relative(dir, p), content: readFileSync(p, 'utf8') }));
}

function cc(spec: Partial<ControllerConfig['spec']> = {}): ControllerConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { name: 'machine-config-controller' },
    spec: {
      clusterDNSIP: '172.30.0.10',
      cloudProviderConfig: '',
      kubeAPIServerServingCAData: '',
      rootCAData: '',
      cloudProviderCAData: null,
      additionalTrustBundle: null,
      images: {},
      baseOSContainerImage: 'quay.io/os:1',
      releaseImage: 'quay.io/release:1',
      proxy: null,
      infra: null,
      dns: null,
      ipFamilies: 'IPv4',
      network: null,
      ...spec,
    },
  };
}

const ignitionOf = (m: MachineConfig) => m.spec?.config as unknown as IgnitionConfig;
const fileText = (m: MachineConfig, path: string): string | undefined => {
  const f = ignitionOf(m).storage?.files?.find((x) => x.path === path);
  const parsed = parseDataUrl(f?.contents?.source ?? '');
  return parsed.ok ? new TextDecoder().decode(parsed.value.data) : undefined;
};

describe('generateTemplateMachineConfigs with the shipped templates', () => {
  const generated = generateTemplateMachineConfigs({
    controllerConfig: cc({ proxy: { httpProxy: 'http://proxy:3128' } }),
    templates: readTemplates(TemplatesDir),
    versionHash: 'hash-1',
  });
  if (!generated.ok) throw new Error(describeTemplateError(generated.error));
  const configs = generated.value;
  const byName = new Map(configs.map((m) => [m.metadata.name ?? '', m]));

  it('makes the three base configs of each role, in name order', () => {
    expect(configs.map((m) => m.metadata.name)).toStrictEqual([
      '00-master',
      '01-master-container-runtime',
      '01-master-kubelet',
      '00-worker',
      '01-worker-container-runtime',
      '01-worker-kubelet',
    ]);
  });

  it('labels each with its role, annotates the controller version and clears the OS images', () => {
    for (const m of configs) {
      const role = (m.metadata.name ?? '').includes('master') ? 'master' : 'worker';
      expect(m.metadata.labels).toStrictEqual({ 'machineconfiguration.openshift.io/role': role });
      expect(m.metadata.annotations).toStrictEqual({
        'machineconfiguration.openshift.io/generated-by-controller-version': 'hash-1',
      });
      expect(m.spec?.osImageURL).toBe('');
      expect(m.spec?.baseOSExtensionsContainerImage).toBe('');
    }
  });

  it('emits valid Ignition 3.5 configs without warnings', () => {
    for (const m of configs) {
      const parsed = parseIgnition(m.spec?.config);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
      expect(parsed.value.version).toBe(GeneratedSpecVersion);
      expect(parsed.value.report.entries).toStrictEqual([]);
    }
  });

  it('puts the common files and the daemon units in 00-<role> only', () => {
    const worker = byName.get('00-worker')!;
    expect(ignitionOf(worker).storage?.files?.map((f) => f.path)).toStrictEqual([
      '/etc/mco/proxy.env',
      '/etc/modules-load.d/kubernetes.conf',
      '/etc/kubernetes/node-role.env',
      '/etc/sysctl.d/99-kubernetes.conf',
    ]);
    expect(ignitionOf(worker).systemd?.units?.map((u) => [u.name, u.enabled])).toStrictEqual([
      ['machine-config-daemon-firstboot.service', true],
      ['machine-config-daemon.service', true],
    ]);
    expect(
      ignitionOf(byName.get('01-worker-kubelet')!).systemd?.units?.map((u) => u.name),
    ).toStrictEqual(['kubelet.service']);
    expect(fileText(worker, '/etc/kubernetes/node-role.env')).toBe('NODE_ROLE=worker\n');
    expect(fileText(worker, '/etc/mco/proxy.env')).toContain('HTTP_PROXY=http://proxy:3128\n');
  });

  it('runs firstboot before kubelet, only while the encapsulated config waits', () => {
    const unit = ignitionOf(byName.get('00-master')!).systemd?.units?.find(
      (u) => u.name === 'machine-config-daemon-firstboot.service',
    );
    expect(unit?.contents).toContain(
      'ConditionPathExists=/etc/ignition-machine-config-encapsulated.json\n',
    );
    expect(unit?.contents).toContain('Before=kubelet.service\n');
    expect(unit?.contents).toContain(
      'ExecStart=/usr/local/bin/mco firstboot-complete-machineconfig\n',
    );
  });

  it('fills the kubelet config from the ControllerConfig, files with their modes', () => {
    const kubelet = byName.get('01-master-kubelet')!;
    expect(fileText(kubelet, '/etc/kubernetes/kubelet.conf')).toContain(
      'clusterDNS:\n  - 172.30.0.10\n',
    );
    expect(ignitionOf(kubelet).storage?.files?.[0]).toMatchObject({ mode: 420, overwrite: true });
    const runtime = byName.get('01-worker-container-runtime')!;
    expect(fileText(runtime, '/etc/crio/crio.conf.d/00-default')).toContain(
      'pause_image = "registry.k8s.io/pause:3.9"\n',
    );
    expect(ignitionOf(runtime).systemd?.units).toStrictEqual([
      {
        dropins: [
          {
            contents:
              '[Service]\n# Node-wide proxy for image pulls.\nEnvironmentFile=-/etc/mco/proxy.env\n',
            name: '10-mco-default-env.conf',
          },
        ],
        name: 'crio.service',
      },
    ]);
  });

  it('proxy.env as upstream writes it: a line per proxy setting that is set, none without a proxy', () => {
    const header = [
      '# Proxy environment variables will be populated in this file. Properly',
      "# url encoded passwords with special characters will use '%<HEX><HEX>'.",
      '# Systemd requires that any % used in a password be represented as',
      '# %% in a unit file since % is a prefix for macros; this restriction does not',
      '# apply for environment files. Templates that need the proxy set should use',
      "# 'EnvironmentFile=/etc/mco/proxy.env'.",
      '',
    ].join('\n');
    const proxyEnv = (spec: Partial<ControllerConfig['spec']>) => {
      const r = generateTemplateMachineConfigs({
        controllerConfig: cc(spec),
        templates: readTemplates(TemplatesDir),
        versionHash: 'h',
      });
      if (!r.ok) throw new Error(describeTemplateError(r.error));
      return fileText(r.value[0]!, '/etc/mco/proxy.env');
    };
    expect(proxyEnv({})).toBe(header);
    expect(proxyEnv({ proxy: { httpsProxy: 'https://p:3129', noProxy: '.cluster.local' } })).toBe(
      `${header}HTTPS_PROXY=https://p:3129\nNO_PROXY=.cluster.local\n`,
    );
  });

  it('apiserver-url.env from the Infrastructure’s internal API URL, only when there is one', () => {
    const configs = (spec: Partial<ControllerConfig['spec']>) => {
      const r = generateTemplateMachineConfigs({
        controllerConfig: cc(spec),
        templates: readTemplates(TemplatesDir),
        versionHash: 'h',
      });
      if (!r.ok) throw new Error(describeTemplateError(r.error));
      return r.value[0]!;
    };
    expect(fileText(configs({}), '/etc/kubernetes/apiserver-url.env')).toBeUndefined();
    const withInfra = (uri: string) =>
      fileText(
        configs({ infra: { status: { apiServerInternalURI: uri } } }),
        '/etc/kubernetes/apiserver-url.env',
      );
    expect(withInfra('https://api-int.example.com:6443')).toBe(
      "KUBERNETES_SERVICE_HOST='api-int.example.com'\nKUBERNETES_SERVICE_PORT='6443'\n",
    );
    expect(withInfra('https://[fd00::1]')).toBe(
      "KUBERNETES_SERVICE_HOST='fd00::1'\nKUBERNETES_SERVICE_PORT='443'\n",
    );
  });

  it('takes the pause image from the ControllerConfig when it names one', () => {
    const r = generateTemplateMachineConfigs({
      controllerConfig: cc({ images: { infraImageKey: 'quay.io/pause:9' } }),
      templates: readTemplates(TemplatesDir),
      versionHash: 'h',
    });
    expect(r.ok && fileText(r.value[1]!, '/etc/crio/crio.conf.d/00-default')).toContain(
      'pause_image = "quay.io/pause:9"\n',
    );
  });
});

const file = (path: string, body: string, mode = '0644') =>
  `mode: ${mode}\npath: "${path}"\ncontents:\n  inline: |\n    ${body}\n`;

describe('generateTemplateMachineConfigs layout rules', () => {
  const run = (templates: TemplateFile[], spec: Partial<ControllerConfig['spec']> = {}) =>
    generateTemplateMachineConfigs({ controllerConfig: cc(spec), templates, versionHash: 'h' });

  it('lets the platform folder replace a _base file of the same name, and an empty file remove it', () => {
    const r = run(
      [
        { path: 'worker/00-worker/_base/files/a.yaml', content: file('/etc/a', 'base') },
        { path: 'worker/00-worker/_base/files/b.yaml', content: file('/etc/b', 'base') },
        { path: 'worker/00-worker/aws/files/a.yaml', content: file('/etc/a', 'aws', '0600') },
        { path: 'worker/00-worker/aws/files/b.yaml', content: '' },
        { path: 'worker/00-worker/gcp/files/c.yaml', content: file('/etc/c', 'gcp') },
      ],
      { infra: { status: { platformStatus: { type: 'AWS' } } } },
    );
    if (!r.ok) throw new Error(describeTemplateError(r.error));
    const m = r.value[0]!;
    expect(ignitionOf(m).storage?.files?.map((f) => [f.path, f.mode])).toStrictEqual([
      ['/etc/a', 384],
    ]);
    expect(fileText(m, '/etc/a')).toBe('aws\n');
  });

  it('adds common templates to the first config of each role only', () => {
    const r = run([
      { path: 'common/_base/files/c.yaml', content: file('/etc/common', '{{ .Role }}') },
      { path: 'master/00-master/_base/files/m.yaml', content: file('/etc/m', 'm') },
      { path: 'master/01-master-x/_base/files/x.yaml', content: file('/etc/x', 'x') },
      { path: 'worker/00-worker/_base/units/u.yaml', content: 'name: u.service\nmask: true\n' },
    ]);
    if (!r.ok) throw new Error(describeTemplateError(r.error));
    expect(
      r.value.map((m) => [m.metadata.name, ignitionOf(m).storage?.files?.map((f) => f.path)]),
    ).toStrictEqual([
      ['00-master', ['/etc/common', '/etc/m']],
      ['01-master-x', ['/etc/x']],
      ['00-worker', ['/etc/common']],
    ]);
    expect(fileText(r.value[2]!, '/etc/common')).toBe('worker\n');
    expect(ignitionOf(r.value[2]!).systemd?.units).toStrictEqual([
      { mask: true, name: 'u.service' },
    ]);
  });

  it('skips a template that renders to whitespace, and files outside the layout', () => {
    const r = run([
      { path: 'README.md', content: '# templates' },
      { path: 'worker/00-worker/_base/notes.txt', content: 'x' },
      { path: 'worker/00-worker/_base/files/blank.yaml', content: '{{ .NetworkType }}\n' },
    ]);
    expect(r.ok && r.value.map((m) => m.spec?.config)).toStrictEqual([
      { ignition: { version: GeneratedSpecVersion } },
    ]);
  });

  it.each([
    [[], 'no templates: expected <role>/<name>/<platform>/{files,units}/ folders'],
    [
      [{ path: 'worker/00-worker/_base/files/a.yaml', content: file('/etc/a', '{{ .Nope }}') }],
      'failed to execute template: template worker/00-worker/_base/files/a.yaml: no value for .Nope',
    ],
    [
      [{ path: 'worker/00-worker/_base/files/a.yaml', content: 'path: [' }],
      'failed to read template 00-worker/files/a.yaml: ',
    ],
    [
      [{ path: 'worker/00-worker/_base/files/a.yaml', content: 'mode: 0644\n' }],
      'failed to read template 00-worker/files/a.yaml: a file needs a path',
    ],
    [
      [{ path: 'worker/00-worker/_base/units/a.yaml', content: 'enabled: true\n' }],
      'failed to read template 00-worker/units/a.yaml: a unit needs a name',
    ],
    [
      [{ path: 'worker/00-worker/_base/files/a.yaml', content: file('relative', 'x') }],
      'template MachineConfig 00-worker is not a valid Ignition config: error at $.storage.files.0.path: path not absolute',
    ],
  ] as const)('refuses %j', (templates, message) => {
    const r = run([...templates]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(describeTemplateError(r.error)).toContain(message);
  });

  it('refuses the _base platform', () => {
    const r = run([{ path: 'worker/00-worker/_base/files/a.yaml', content: file('/etc/a', 'a') }], {
      platform: '_base',
    });
    expect(!r.ok && describeTemplateError(r.error)).toBe('platform _base unsupported');
  });
});

describe('renderTemplate', () => {
  const context = { Role: 'worker', N: 3, Images: { a: 'img-a', empty: '' } };

  it.each([
    ['plain text', 'plain text'],
    ['{{.Role}}', 'worker'],
    ['x={{ .N }}', 'x=3'],
    ['{{ .Images.a }}', 'img-a'],
    ['{{ .Images.b | default "fallback" }}', 'fallback'],
    ['{{ .Images.empty | default "d\\"q" }}', 'd"q'],
    ['{{ .Images.empty }}|', '|'],
    ['a  \n{{- .Role -}}\n  b', 'aworkerb'],
    ['{{if .Role}}r={{.Role}}{{end}};', 'r=worker;'],
    ['{{if .Missing}}{{.Missing}}{{end}};', ';'],
    ['{{if .Images.empty}}x{{end}}{{ if .N }}n{{ end }}', 'n'],
    ['{{if .Images}}{{if .Images.b}}b{{end}}a{{end}}', 'a'],
    ['x\n{{if .Missing -}}\ny\n{{end -}}\nz', 'x\nz'],
  ])('%j → %j', (text, expected) => {
    expect(renderTemplate('t', text, context)).toStrictEqual({ ok: true, value: expected });
  });

  it.each([
    ['{{ .Role', 'template t: unclosed action at offset 0'],
    [
      '{{ Role }}',
      'template t: cannot read action {{ Role }}: expected {{ .Path }} or {{ .Path | default "value" }}',
    ],
    ['{{ .Images.b }}', 'template t: no value for .Images.b'],
    ['{{ .Images }}', 'template t: .Images is not a string, number or boolean'],
    ['{{ .Role.x }}', 'template t: no value for .Role.x'],
    ['a{{end}}', 'template t: unexpected {{end}} at offset 1'],
    ['{{if .Role}}a', 'template t: unexpected EOF: an {{if}} has no {{end}}'],
  ])('%j fails: %s', (text, message) => {
    const r = renderTemplate('t', text, context);
    expect(!r.ok && describeRenderTemplateError(r.error)).toBe(message);
  });
});
