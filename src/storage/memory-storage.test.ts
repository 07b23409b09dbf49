/**
 * MemoryStorage runs the shared Storage contract.
 */
import { describeStorageContract } from '../../test/support/storage-contract.js';
import { MemoryStorage } from './memory-storage.js';

describeStorageContract('MemoryStorage', () => Promise.resolve(new MemoryStorage()));
