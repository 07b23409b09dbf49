/**
 * Setuid, setgid and sticky bits in file and directory modes: specs before 3.4 cannot carry them,
 * so upstream masks them out (`mode & ^07000`) when translating 3.3 → 3.4 and back.
 */
import { isRecord, type JsonRecord } from './canonical-form.js';

/** `config` with those bits cleared from every file and directory mode; unchanged parts shared. */
export function maskSpecialModeBits(config: JsonRecord): JsonRecord {
  const storage = config['storage'];
  if (!isRecord(storage)) return config;
  const mask = (list: unknown): unknown =>
    Array.isArray(list)
      ? list.map(
          (n: unknown) =>
            isRecord(n) && typeof n['mode'] === 'number' && (n['mode'] & ~0o7000) !== n['mode']
              ? { ...n, mode: n['mode'] & ~0o7000 }
              : n, // unchanged entries are kept, not copied
        )
      : list;
  const masked: JsonRecord = Object.assign({}, storage);
  if (storage['files'] !== undefined) masked['files'] = mask(storage['files']);
  if (storage['directories'] !== undefined) masked['directories'] = mask(storage['directories']);
  return Object.assign({}, config, { storage: masked });
}
