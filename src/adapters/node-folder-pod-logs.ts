/**
 * PodLogSource over the node folders of the cluster in a box, playing the kubelet's
 * `/containerLogs`: a pod's log is the output of the container instance its node's supervisor
 * recorded (`<nodesDir>/<spec.nodeName>/state/daemon-pod.json`, src/ports/daemon-container-record.ts)
 * in the node's `daemon.log`: the current instance, or with `previous` the one before. `follow`
 * keeps sending what the instance appends until it ends (its process exited: the kubelet ends a
 * follow when the container stops), the request goes away, or the server shuts down.
 *
 * Only a pod whose uid the record names has a log: any other (the simulated workload pods, whose
 * containers run nothing, or a pod someone made with the same nodeName) gets the kubelet's 400.
 * The node name must be a valid one, so it never leaves `nodesDir`; the log is opened with
 * O_NOFOLLOW.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { constants, readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StatusError } from '../api/meta/v1/status-error.js';
import type { Pod } from '../api/core/v1/pod.js';
import { lineTimeMs, LogLineWriter, tailStart } from '../logic/pod-log-lines.js';
import type { PodLogOptions, PodLogSource } from '../ports/pod-log-source.js';
import {
  DaemonLogFile,
  type ContainerInstance,
  type DaemonContainerRecord,
} from '../ports/daemon-container-record.js';
import { readDaemonContainerRecord } from './daemon-container-records.js';

const NodeName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const ChunkBytes = 64 * 1024;

export interface NodeFolderPodLogsOptions {
  /** The folder holding one folder per node, named as the Node. */
  readonly nodesDir: string;
  /** How often a follow looks for more output (default 200 ms). */
  readonly pollMs?: number;
  /** Whether `pid` is still the node's daemon (default: /proc says it runs from the node folder). */
  readonly processAlive?: (pid: number, nodeDir: string) => boolean;
}

function runsFrom(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .some((a) => a.includes(dir));
  } catch {
    return false;
  }
}

/**
 * Where the last `n` lines between `start` and `end` begin, reading backwards in chunks, and the
 * time of the nearest earlier line that carries one in what was read (for the tail's raw lines).
 */
async function tailOffset(
  file: FileHandle,
  start: number,
  end: number,
  n: number,
): Promise<{ offset: number; timeMs?: number }> {
  let from = end;
  let text = '';
  while (from > start) {
    const size = Math.min(ChunkBytes, from - start);
    from -= size;
    const buffer = Buffer.alloc(size);
    await file.read(buffer, 0, size, from);
    text = buffer.toString('latin1') + text;
    const at = tailStart(text, n);
    if (at > 0 || from === start) {
      const before = text.slice(0, at).split('\n').reverse();
      const timeMs = before.map(lineTimeMs).find((t) => t !== undefined);
      return { offset: from + at, ...(timeMs === undefined ? {} : { timeMs }) };
    }
  }
  return { offset: start };
}

export class NodeFolderPodLogs implements PodLogSource {
  readonly #o: NodeFolderPodLogsOptions;

  constructor(options: NodeFolderPodLogsOptions) {
    this.#o = options;
  }

  async stream(
    pod: Pod,
    options: PodLogOptions,
    signal: AbortSignal,
  ): Promise<ReadableStream<Uint8Array>> {
    const nodeName: unknown = pod.spec?.nodeName;
    // Not scheduled yet: the API server answers an empty log.
    if (typeof nodeName !== 'string' || nodeName === '')
      return new ReadableStream({
        start: (c) => {
          c.close();
        },
      });
    const podName = pod.metadata.name ?? '';
    const notRunHere = StatusError.badRequest(
      `container ${JSON.stringify(options.container)} in pod ${JSON.stringify(podName)} is not running: this cluster runs no process for it`,
    );
    if (nodeName.length > 253 || !NodeName.test(nodeName)) throw notRunHere;
    const nodeDir = join(this.#o.nodesDir, nodeName);
    const record = await readDaemonContainerRecord(nodeDir);
    if (
      record?.pod === undefined ||
      record.pod.uid !== pod.metadata.uid ||
      record.container !== options.container
    )
      throw notRunHere;
    const index = record.instances.length - (options.previous ? 2 : 1);
    const instance = record.instances[index];
    if (instance === undefined) {
      if (options.previous)
        throw StatusError.badRequest(
          `previous terminated container ${JSON.stringify(options.container)} in pod ${JSON.stringify(podName)} not found`,
        );
      throw StatusError.badRequest(
        `container ${JSON.stringify(options.container)} in pod ${JSON.stringify(podName)} is waiting to start: ContainerCreating`,
      );
    }
    let file: FileHandle;
    try {
      file = await open(join(nodeDir, DaemonLogFile), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return new ReadableStream({
        start: (c) => {
          c.close();
        },
      });
    }
    // An instance whose end was never recorded (its supervisor died) ends where the next began.
    const end = instance.endOffset ?? record.instances[index + 1]?.offset;
    const reader = new InstanceReader({
      file,
      instance,
      ...(end === undefined ? {} : { end }),
      options,
      follow: options.follow && !options.previous,
      pollMs: this.#o.pollMs ?? 200,
      current: () => readDaemonContainerRecord(nodeDir),
      alive: (pid) => (this.#o.processAlive ?? runsFrom)(pid, nodeDir),
      signal,
    });
    return reader.stream();
  }
}

interface InstanceReaderOptions {
  readonly file: FileHandle;
  readonly instance: ContainerInstance;
  readonly end?: number;
  readonly options: PodLogOptions;
  readonly follow: boolean;
  readonly pollMs: number;
  readonly current: () => Promise<DaemonContainerRecord | undefined>;
  readonly alive: (pid: number) => boolean;
  readonly signal: AbortSignal;
}

/** One container instance's bytes of the log, as whole lines, ending where the instance ends. */
class InstanceReader {
  readonly #o: InstanceReaderOptions;
  readonly #writer: LogLineWriter;
  #position: number;
  /** Where the instance's output ends, once it has. */
  #end: number | undefined;
  #pending: Buffer = Buffer.alloc(0);
  #started = false;
  #closed = false;

  constructor(o: InstanceReaderOptions) {
    this.#o = o;
    this.#position = o.instance.offset;
    this.#end = o.end;
    this.#writer = new LogLineWriter({
      timestamps: o.options.timestamps,
      startMs: Date.parse(o.instance.startedAt),
      ...(o.options.sinceMs === undefined ? {} : { sinceMs: o.options.sinceMs }),
      ...(o.options.limitBytes === undefined ? {} : { limitBytes: o.options.limitBytes }),
    });
  }

  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const chunk = await this.#next();
          if (chunk === undefined) {
            await this.#close();
            controller.close();
          } else controller.enqueue(chunk);
        } catch (e) {
          await this.#close();
          controller.error(e);
        }
      },
      cancel: () => this.#close(),
    });
  }

  async #close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#o.file.close();
  }

  /** The next bytes to send, or undefined once done. */
  async #next(): Promise<Uint8Array | undefined> {
    if (!this.#started) {
      this.#started = true;
      if (this.#o.options.tailLines !== undefined) {
        const end = this.#end ?? (await this.#o.file.stat()).size;
        const tail = await tailOffset(this.#o.file, this.#position, end, this.#o.options.tailLines);
        this.#position = tail.offset;
        if (tail.timeMs !== undefined) this.#writer.lastMs = tail.timeMs;
      }
    }
    for (;;) {
      if (this.#writer.full || this.#o.signal.aborted) return undefined;
      const size = (await this.#o.file.stat()).size;
      const limit = Math.min(this.#end ?? size, size);
      if (this.#position < limit) {
        const bytes = await this.#read(limit);
        if (bytes.length > 0) return bytes;
        continue;
      }
      if (this.#end !== undefined || !this.#o.follow) return this.#flush();
      if (await this.#ended()) continue;
      // An abort ends the wait early (the only way it rejects); the loop then sees the signal.
      await sleep(this.#o.pollMs, undefined, { signal: this.#o.signal }).catch(() => undefined);
    }
  }

  /** Whole lines from the position up to `limit` (a partial last line waits for its end). */
  async #read(limit: number): Promise<Uint8Array> {
    const size = Math.min(ChunkBytes, limit - this.#position);
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await this.#o.file.read(buffer, 0, size, this.#position);
    this.#position += bytesRead;
    // Split on newline bytes, so a character cut by the chunk's end waits for its other half.
    const bytes = Buffer.concat([this.#pending, buffer.subarray(0, bytesRead)]);
    const last = bytes.lastIndexOf(0x0a);
    if (last < 0) {
      this.#pending = bytes;
      return new Uint8Array();
    }
    this.#pending = bytes.subarray(last + 1);
    return this.#writer.write(bytes.subarray(0, last).toString('utf8').split('\n'));
  }

  /** What is left of a last line without a newline, once the instance has ended. */
  #flush(): Uint8Array | undefined {
    if (this.#pending.length === 0) return undefined;
    const rest = this.#pending.toString('utf8');
    this.#pending = Buffer.alloc(0);
    const bytes = this.#writer.write([rest]);
    return bytes.length > 0 ? bytes : undefined;
  }

  /** Whether the followed instance has ended; then `#end` is where its output ends. */
  async #ended(): Promise<boolean> {
    const id = this.#o.instance.containerId;
    const record = await this.#o.current();
    const now = record?.instances.find((i) => i.containerId === id);
    if (now?.endOffset !== undefined) {
      this.#end = now.endOffset;
      return true;
    }
    // Gone from the record (the pod was replaced) or its process is: it ends with what it wrote.
    const pid = now?.pid;
    if (now === undefined || (pid !== undefined && !this.#o.alive(pid))) {
      this.#end = (await this.#o.file.stat()).size;
      return true;
    }
    return false;
  }
}
