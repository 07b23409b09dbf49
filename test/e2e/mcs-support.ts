/**
 * Helpers for the machine config server end-to-end tests: certificates with chosen validity, free
 * ports, the built `mco server` as a process (stopped by PID), and the real Ignition 2.14 run
 * stage by stage against a scratch root (docs/reference/tools.md §1.3–1.4).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RepoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const McoBin = join(RepoRoot, 'bin/mco.js');
const IgnitionBin = '/usr/lib/dracut/modules.d/30ignition/ignition';
export const IgnitionAccept = 'application/vnd.coreos.ignition+json;version=3.3.0, */*;q=0.1';

const DayMs = 86_400_000;
const KeyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SigningAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;

export function requireBuilt(): void {
  if (!existsSync(join(RepoRoot, 'dist/src/cmd/mco.js')))
    throw new Error('dist/ is missing: run `npm run build` before the end-to-end tests');
}

async function pem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

export interface TestCa {
  readonly certPem: string;
  /** A serving certificate for 127.0.0.1/localhost, valid in [notBefore, notAfter]. */
  issue(options?: { notBefore?: number; notAfter?: number; cn?: string }): Promise<{
    certPem: string;
    keyPem: string;
    serial: string;
  }>;
}

let serials = 0;

export async function makeCa(): Promise<TestCa> {
  const now = Date.now();
  const keys = await webcrypto.subtle.generateKey(KeyAlgorithm, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=mcs-test-ca',
    notBefore: new Date(now - DayMs),
    notAfter: new Date(now + 30 * DayMs),
    signingAlgorithm: SigningAlgorithm,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certPem: `${ca.toString('pem')}\n`,
    async issue(options = {}) {
      const leafKeys = await webcrypto.subtle.generateKey(KeyAlgorithm, true, ['sign', 'verify']);
      serials += 1;
      const serial = (0x100 + serials).toString(16);
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial,
        subject: `CN=${options.cn ?? 'machine-config-server'}`,
        issuer: ca.subject,
        notBefore: new Date(options.notBefore ?? now - DayMs),
        notAfter: new Date(options.notAfter ?? now + 10 * DayMs),
        signingAlgorithm: SigningAlgorithm,
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([
            { type: 'ip', value: '127.0.0.1' },
            { type: 'dns', value: 'localhost' },
          ]),
        ],
      });
      return {
        certPem: `${cert.toString('pem')}\n`,
        keyPem: await pem(leafKeys.privateKey),
        serial,
      };
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => {
        resolve(port);
      });
    });
  });
}

export interface RunningServer {
  readonly pid: number;
  readonly securePort: number;
  readonly insecurePort: number;
  readonly metricsPort?: number;
  /** Everything the server logged so far (pino JSON lines on stderr). */
  log(): string;
  logLines(): Record<string, unknown>[];
  /** Waits until a log line satisfies `match`. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function healthz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/healthz', timeout: 1000, agent: false },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', () => {
      resolve(0);
    });
    req.end();
  });
}

export async function startServer(
  args: readonly string[],
  options: { metrics?: boolean } = {},
): Promise<RunningServer> {
  requireBuilt();
  const securePort = await freePort();
  const insecurePort = await freePort();
  const metricsPort = options.metrics === true ? await freePort() : undefined;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      McoBin,
      'server',
      '--address',
      '127.0.0.1',
      '--secure-port',
      String(securePort),
      '--insecure-port',
      String(insecurePort),
      ...(metricsPort === undefined ? [] : ['--metrics-port', String(metricsPort)]),
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  child.stdout?.resume();
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('mco server did not start');
  const lines = () =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const deadline = Date.now() + 30_000;
  while ((await healthz(insecurePort)) !== 200) {
    if (child.exitCode !== null) throw new Error(`mco server exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      throw new Error(`mco server did not become healthy: ${stderr}`);
    }
    await sleep(50);
  }
  return {
    pid,
    securePort,
    insecurePort,
    ...(metricsPort === undefined ? {} : { metricsPort }),
    log: () => stderr,
    logLines: lines,
    async waitForLog(match, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (!lines().some(match)) {
        if (Date.now() > end) throw new Error(`no matching log line in:\n${stderr}`);
        await sleep(50);
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      process.kill(pid, 'SIGTERM');
      const killer = setTimeout(() => {
        if (child.exitCode === null) process.kill(pid, 'SIGKILL');
      }, 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** A root every Ignition stage accepts (docs/reference/tools.md §1.3), and the no-op setfiles shim. */
export function makeNodeRoot(work: string, name = 'node-root'): { root: string; shim: string } {
  const root = join(work, name);
  rmSync(root, { recursive: true, force: true });
  for (const d of ['etc/selinux', 'etc/default', 'home'])
    mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
  writeFileSync(join(root, 'etc/shadow'), 'root:*:19000:0:99999:7:::\n', { mode: 0o640 });
  writeFileSync(join(root, 'etc/gshadow'), 'root:*::\n', { mode: 0o640 });
  writeFileSync(join(root, 'etc/selinux/config'), 'SELINUX=disabled\nSELINUXTYPE=targeted\n');
  cpSync('/etc/login.defs', join(root, 'etc/login.defs'));
  cpSync('/etc/default/useradd', join(root, 'etc/default/useradd'));
  const shim = join(work, 'shim');
  mkdirSync(shim, { recursive: true });
  writeFileSync(join(shim, 'setfiles'), '#!/bin/sh\ncat >/dev/null; exit 0\n');
  chmodSync(join(shim, 'setfiles'), 0o755);
  return { root, shim };
}

export interface IgnitionRun {
  readonly ok: boolean;
  readonly failedStage?: string;
  readonly output: string;
}

/** Runs every Ignition stage in order (fetch only when fetch-offline asks for the network). */
export function runIgnition(
  config: string,
  root: string,
  stateDir: string,
  shim: string,
  extraEnv: Record<string, string> = {},
): IgnitionRun {
  mkdirSync(stateDir, { recursive: true });
  for (const f of ['ignition.json', 'state', 'neednet']) rmSync(join(stateDir, f), { force: true });
  let output = '';
  const common = [
    `--root=${root}`,
    '--platform=file',
    `--config-cache=${join(stateDir, 'ignition.json')}`,
    `--state-file=${join(stateDir, 'state')}`,
    '--log-to-stdout',
  ];
  for (const stage of ['fetch-offline', 'fetch', 'kargs', 'disks', 'mount', 'files', 'umount']) {
    if (stage === 'fetch' && !existsSync(join(stateDir, 'neednet'))) continue;
    const extra = stage.startsWith('fetch') ? [`--neednet=${join(stateDir, 'neednet')}`] : [];
    const r = spawnSync(IgnitionBin, [...common, ...extra, `--stage=${stage}`], {
      env: {
        ...process.env,
        ...extraEnv,
        IGNITION_CONFIG_FILE: config,
        PATH: `${shim}:${process.env['PATH'] ?? ''}`,
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    output += `--- ${stage} (rc=${String(r.status)})\n${(r.stdout + r.stderr)
      .split('\n')
      .filter((l) => !l.includes('failed to log systemd journal entry'))
      .join('\n')}\n`;
    if (r.status !== 0) return { ok: false, failedStage: stage, output };
  }
  return { ok: true, output };
}
