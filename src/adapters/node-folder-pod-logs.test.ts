import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isStatusError } from '../api/meta/v1/status-error.js';
import type { Pod } from '../api/core/v1/pod.js';
import { podLogOptions } from '../apiserver/pod-logs.js';
import type { KubeObject } from '../apiserver/resource-store.js';
import type { PodLogOptions } from '../ports/pod-log-source.js';
import type { DaemonContainerRecord } from '../ports/daemon-container-record.js';
import { NodeFolderPodLogs } from './node-folder-pod-logs.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);
const line = (ms: number, msg: string) => JSON.stringify({ level: 30, time: ms, msg });

const pod = (nodeName: string, uid = 'pod-uid'): KubeObject & Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'machine-config-daemon-abcde', namespace: 'ns', uid },
  spec: { nodeName, containers: [{ name: 'machine-config-daemon' }] },
});

function nodes(): { nodesDir: string; nodeDir: string } {
  const nodesDir = mkdtempSync(join(tmpdir(), 'pod-logs-'));
  dirs.push(nodesDir);
  const nodeDir = join(nodesDir, 'worker-0');
  mkdirSync(join(nodeDir, 'state'), { recursive: true });
  return { nodesDir, nodeDir };
}

function writeRecord(nodeDir: string, record: DaemonContainerRecord): void {
  writeFileSync(join(nodeDir, 'state/daemon-pod.json'), JSON.stringify(record));
}

const options = (q: string, p: KubeObject, now = T0 + 60_000): PodLogOptions =>
  podLogOptions(new URLSearchParams(q), p, now);

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

/** Two runs of the daemon: a, b in the first (ended), c, d and a raw line in the second. */
function twoRuns(nodeDir: string, secondEnded: boolean): void {
  const first = `${line(T0, 'a')}\n${line(T0 + 1000, 'b')}\n`;
  const second = `${line(T0 + 10_000, 'c')}\nplain output\n${line(T0 + 12_000, 'd')}\n`;
  writeFileSync(join(nodeDir, 'daemon.log'), first + second);
  const end = Buffer.byteLength(first);
  writeRecord(nodeDir, {
    pod: { namespace: 'ns', name: 'machine-config-daemon-abcde', uid: 'pod-uid' },
    container: 'machine-config-daemon',
    instances: [
      {
        restartCount: 0,
        containerId: 'cri-o://1',
        startedAt: new Date(T0).toISOString(),
        offset: 0,
        endOffset: end,
        finishedAt: new Date(T0 + 2000).toISOString(),
        exitCode: 143,
      },
      {
        restartCount: 1,
        containerId: 'cri-o://2',
        startedAt: new Date(T0 + 9000).toISOString(),
        offset: end,
        pid: 999_999_999,
        ...(secondEnded ? { endOffset: end + Buffer.byteLength(second) } : {}),
      },
    ],
  });
}

describe('NodeFolderPodLogs', () => {
  it('serves the current run, or the one before with previous', async () => {
    const { nodesDir, nodeDir } = nodes();
    twoRuns(nodeDir, true);
    const logs = new NodeFolderPodLogs({ nodesDir });
    const p = pod('worker-0');
    const signal = new AbortController().signal;
    const current = await text(await logs.stream(p, options('', p), signal));
    expect(
      current
        .split('\n')
        .map((l) => (l.startsWith('{') ? (JSON.parse(l) as { msg: string }).msg : l)),
    ).toEqual(['c', 'plain output', 'd', '']);
    const previous = await text(await logs.stream(p, options('previous=true', p), signal));
    expect(previous).toBe(`${line(T0, 'a')}\n${line(T0 + 1000, 'b')}\n`);
  });

  it('honours tailLines, timestamps, sinceTime and limitBytes as the kubelet does', async () => {
    const { nodesDir, nodeDir } = nodes();
    twoRuns(nodeDir, true);
    const logs = new NodeFolderPodLogs({ nodesDir });
    const p = pod('worker-0');
    const signal = new AbortController().signal;
    const tail = await text(
      await logs.stream(p, options('tailLines=2&timestamps=true', p), signal),
    );
    // a line without a time of its own takes the one before it
    expect(tail).toBe(
      `2026-01-02T03:04:15Z plain output\n2026-01-02T03:04:17Z ${line(T0 + 12_000, 'd')}\n`,
    );
    const since = await text(
      await logs.stream(p, options('sinceTime=2026-01-02T03:04:16Z', p), signal),
    );
    expect(since).toBe(`${line(T0 + 12_000, 'd')}\n`);
    const limited = await text(await logs.stream(p, options('limitBytes=5', p), signal));
    expect(limited).toBe(line(T0 + 10_000, 'c').slice(0, 5));
    const none = await text(await logs.stream(p, options('tailLines=0', p), signal));
    expect(none).toBe('');
  });

  it('follows the running instance until its process ends', async () => {
    const { nodesDir, nodeDir } = nodes();
    twoRuns(nodeDir, false);
    let alive = true;
    const logs = new NodeFolderPodLogs({ nodesDir, pollMs: 10, processAlive: () => alive });
    const p = pod('worker-0');
    const stream = await logs.stream(
      p,
      options('follow=true&tailLines=1', p),
      new AbortController().signal,
    );
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let got = decoder.decode((await reader.read()).value);
    expect(got).toBe(`${line(T0 + 12_000, 'd')}\n`);
    appendFileSync(join(nodeDir, 'daemon.log'), `${line(T0 + 20_000, 'e')}\npartial`);
    got = decoder.decode((await reader.read()).value);
    expect(got).toBe(`${line(T0 + 20_000, 'e')}\n`);
    alive = false;
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    // the unfinished last line comes out once the instance has ended
    expect(rest).toBe('partial\n');
  });

  it('ends a follow when the request goes away', async () => {
    const { nodesDir, nodeDir } = nodes();
    twoRuns(nodeDir, false);
    const logs = new NodeFolderPodLogs({ nodesDir, pollMs: 10, processAlive: () => true });
    const p = pod('worker-0');
    const abort = new AbortController();
    const stream = await logs.stream(p, options('follow=true&tailLines=0', p), abort.signal);
    const reading = text(stream);
    abort.abort();
    expect(await reading).toBe('');
  });

  it('serves no log for a pod the record does not name, or a hostile node name', async () => {
    const { nodesDir, nodeDir } = nodes();
    twoRuns(nodeDir, true);
    const logs = new NodeFolderPodLogs({ nodesDir });
    const signal = new AbortController().signal;
    const refused = async (p: KubeObject & Pod, q = ''): Promise<string> => {
      try {
        await logs.stream(p, options(q, p), signal);
      } catch (e) {
        if (isStatusError(e, 'BadRequest')) return e.message;
        throw e;
      }
      return 'served';
    };
    expect(await refused(pod('worker-0', 'other-uid'))).toMatch(/is not running/);
    expect(await refused(pod('../worker-0'))).toMatch(/is not running/);
    expect(await refused(pod('worker-0/..'))).toMatch(/is not running/);
    // a record without an earlier run has no previous
    writeRecord(nodeDir, {
      pod: { namespace: 'ns', name: 'machine-config-daemon-abcde', uid: 'pod-uid' },
      container: 'machine-config-daemon',
      instances: [
        {
          restartCount: 0,
          containerId: 'cri-o://1',
          startedAt: new Date(T0).toISOString(),
          offset: 0,
        },
      ],
    });
    expect(await refused(pod('worker-0'), 'previous=1')).toMatch(/previous terminated container/);
  });

  it('does not follow a symlinked log out of the node folder', async () => {
    const { nodesDir, nodeDir } = nodes();
    twoRuns(nodeDir, true);
    const outside = join(nodesDir, 'secret');
    writeFileSync(outside, 'secret\n');
    rmSync(join(nodeDir, 'daemon.log'));
    symlinkSync(outside, join(nodeDir, 'daemon.log'));
    const logs = new NodeFolderPodLogs({ nodesDir });
    const p = pod('worker-0');
    expect(await text(await logs.stream(p, options('', p), new AbortController().signal))).toBe('');
  });
});

describe('podLogOptions', () => {
  const p = pod('worker-0');
  const status = (q: string): unknown => {
    try {
      options(q, p);
    } catch (e) {
      return isStatusError(e) ? [e.code, e.reason] : e;
    }
    return 'ok';
  };

  it('checks the options as kube-apiserver does', () => {
    expect(status('tailLines=-1')).toEqual([422, 'Invalid']);
    expect(status('limitBytes=0')).toEqual([422, 'Invalid']);
    expect(status('sinceSeconds=0')).toEqual([422, 'Invalid']);
    expect(status('sinceSeconds=5&sinceTime=2026-01-02T03:04:05Z')).toEqual([422, 'Invalid']);
    expect(status('follow=maybe')).toEqual([400, 'BadRequest']);
    expect(status('tailLines=1e3')).toEqual([400, 'BadRequest']);
    expect(status('sinceTime=yesterday')).toEqual([400, 'BadRequest']);
    expect(status('container=other')).toEqual([400, 'BadRequest']);
    expect(status('container=machine-config-daemon&follow=1&timestamps=T')).toBe('ok');
  });

  it('turns sinceSeconds into a time', () => {
    expect(options('sinceSeconds=30', p, T0).sinceMs).toBe(T0 - 30_000);
  });
});
