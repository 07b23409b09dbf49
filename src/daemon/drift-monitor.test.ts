/**
 * The config drift monitor on a real folder root with the real fs.watch adapter: an edited
 * managed file is reported with upstream's raw text, a restored one as clean, a changed mode as a
 * mode mismatch, an edit outside the managed paths not at all, the forcefile in /run as such (also
 * one already there at start); a stopped monitor reports nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsFileWatcher } from '../adapters/fs-file-watcher.js';
import { silentLogger } from '../ports/logger.js';
import type { IgnitionConfig } from '../ignition/types.js';
import { createPlainHost, type PlainHost } from '../../test/support/plain-host.js';
import { file } from '../../test/support/daemon-fixtures.js';
import { DriftMonitor } from './drift-monitor.js';
import { GeneratedSpecVersion } from '../ignition/versions.js';

let hosts: PlainHost[] = [];
afterEach(() => {
  for (const h of hosts) h.dispose();
  hosts = [];
});

async function setup() {
  const p = createPlainHost();
  hosts.push(p);
  const ign: IgnitionConfig = {
    ignition: { version: GeneratedSpecVersion },
    storage: { files: [file('/etc/drift/a.conf', 'a\n'), file('/etc/drift/b.conf', 'b\n', 0o600)] },
  };
  await p.host.files.writeAtomic('/etc/drift/a.conf', new TextEncoder().encode('a\n'), {
    mode: 0o644,
  });
  await p.host.files.writeAtomic('/etc/drift/b.conf', new TextEncoder().encode('b\n'), {
    mode: 0o600,
  });
  const seen: string[] = [];
  const monitor = new DriftMonitor({
    host: p.host,
    watcher: fsFileWatcher,
    log: silentLogger,
    debounceMs: 10,
    handlers: {
      onDrift: (m) => seen.push(`drift: ${m}`),
      onClean: () => seen.push('clean'),
      onForceFile: () => seen.push('forcefile'),
    },
  });
  await monitor.start('rendered-1', ign);
  // the monitor validates once at start; the tests begin after that first (clean) report
  await waitFor(seen, 1);
  expect(seen).toEqual(['clean']);
  seen.length = 0;
  return { p, seen, monitor };
}

async function waitFor(seen: string[], n: number, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (seen.length < n && Date.now() < deadline) await sleep(10);
}

describe('DriftMonitor', () => {
  it('reports an edit with the exact reason, and the restore as clean', async () => {
    const { p, seen, monitor } = await setup();
    writeFileSync(join(p.root, 'etc/drift/a.conf'), 'edited\n');
    await waitFor(seen, 1);
    expect(seen).toEqual(['drift: content mismatch for file "/etc/drift/a.conf"']);
    writeFileSync(join(p.root, 'etc/drift/a.conf'), 'a\n');
    await waitFor(seen, 2);
    expect(seen).toEqual(['drift: content mismatch for file "/etc/drift/a.conf"', 'clean']);
    monitor.stop();
  });

  it('reports a mode change in Go’s FileMode texts', async () => {
    const { p, seen, monitor } = await setup();
    chmodSync(join(p.root, 'etc/drift/b.conf'), 0o644);
    // chmod alone changes no entry of the folder; a write to the file does
    writeFileSync(join(p.root, 'etc/drift/b.conf'), 'b\n');
    await waitFor(seen, 1);
    expect(seen).toEqual([
      'drift: mode mismatch for file: "/etc/drift/b.conf"; expected: -rw-------/384/0600; received: -rw-r--r--/420/0644',
    ]);
    monitor.stop();
  });

  it('ignores files it does not manage, sees the forcefile, and is silent once stopped', async () => {
    const { p, seen, monitor } = await setup();
    writeFileSync(join(p.root, 'etc/drift/other.conf'), 'x\n');
    await sleep(200);
    expect(seen).toEqual([]);
    writeFileSync(join(p.root, 'run/machine-config-daemon-force'), '');
    await waitFor(seen, 1);
    expect(seen).toEqual(['forcefile']);
    monitor.stop();
    writeFileSync(join(p.root, 'etc/drift/a.conf'), 'edited\n');
    await sleep(200);
    expect(seen).toEqual(['forcefile']);
  });

  it('reports a forcefile that was there before it started (touched while no watch ran)', async () => {
    const { p, seen, monitor } = await setup();
    monitor.stop();
    writeFileSync(join(p.root, 'run/machine-config-daemon-force'), '');
    await monitor.start('rendered-1', {
      ignition: { version: GeneratedSpecVersion },
      storage: { files: [file('/etc/drift/a.conf', 'a\n')] },
    });
    await waitFor(seen, 2);
    expect(seen).toContain('forcefile');
    monitor.stop();
  });
});
