/**
 * The size limits over MemoryStorage and SqliteStorage (etcd: test/integration/etcd-storage.test.ts).
 */
import { SqliteStorage } from '../../storage/sqlite-storage.js';
import { MemoryStorage } from '../../storage/memory-storage.js';
import { describeSizeLimits } from '../../../test/support/size-limits-contract.js';

describeSizeLimits('MemoryStorage', () => Promise.resolve(new MemoryStorage()));
describeSizeLimits('SqliteStorage', () => SqliteStorage.open(':memory:'));
