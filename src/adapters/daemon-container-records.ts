/**
 * The daemon container record of a node folder (src/ports/daemon-container-record.ts) on disk:
 * `<node folder>/state/daemon-pod.json`, replaced atomically by the node's supervisor, read by the
 * supervisor and by the API server. A record that is missing or not of the expected shape reads
 * as none.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DaemonContainerRecordFile,
  DaemonLogFile,
  type ContainerInstance,
  type DaemonContainerRecord,
  type DaemonContainerRecordStore,
} from '../ports/daemon-container-record.js';
import { writeJsonAtomic } from './ostree-boot.js';

const isString = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const optional = (v: unknown, check: (x: unknown) => boolean): boolean =>
  v === undefined || check(v);

function isInstance(v: unknown): v is ContainerInstance {
  if (typeof v !== 'object' || v === null) return false;
  const i = v as Record<string, unknown>;
  return (
    isCount(i['restartCount']) &&
    isString(i['containerId']) &&
    isString(i['startedAt']) &&
    isCount(i['offset']) &&
    optional(i['pid'], isCount) &&
    optional(i['finishedAt'], isString) &&
    optional(i['endOffset'], isCount) &&
    optional(i['exitCode'], Number.isSafeInteger) &&
    optional(i['signal'], isString)
  );
}

/** The record if `value` has its shape, else undefined. */
function asDaemonContainerRecord(value: unknown): DaemonContainerRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const pod = r['pod'] as Record<string, unknown> | undefined;
  const podOk =
    pod === undefined ||
    (typeof pod === 'object' &&
      isString(pod['namespace']) &&
      isString(pod['name']) &&
      isString(pod['uid']));
  if (!podOk || !isString(r['container'])) return undefined;
  const instances = r['instances'];
  if (!Array.isArray(instances) || !instances.every(isInstance)) return undefined;
  return value as DaemonContainerRecord;
}

export async function readDaemonContainerRecord(
  nodeDir: string,
): Promise<DaemonContainerRecord | undefined> {
  let text: string;
  try {
    text = await readFile(join(nodeDir, DaemonContainerRecordFile), 'utf8');
  } catch {
    return undefined;
  }
  try {
    return asDaemonContainerRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** The store a node supervisor writes through. */
export function nodeFolderContainerRecords(nodeDir: string): DaemonContainerRecordStore {
  return {
    read: () => readDaemonContainerRecord(nodeDir),
    write: (record) => writeJsonAtomic(join(nodeDir, DaemonContainerRecordFile), record),
    logSize: () => fileSize(join(nodeDir, DaemonLogFile)),
  };
}
