/**
 * SqliteStorage: the shared Storage contract, plus what only a file gives: restarts and crashes.
 */
import { describeStorageContract } from '../ports/storage.contract.js';
import { SqliteStorage } from './sqlite-storage.js';

describeStorageContract('SqliteStorage(:memory:)', () => SqliteStorage.open(':memory:'));
describeStorageContract('SqliteStorage(:memory:, replay pages of 3)', () =>
  SqliteStorage.open(':memory:', { replayPageSize: 3 }),
);
