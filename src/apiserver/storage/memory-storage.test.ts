/**
 * MemoryStorage runs the shared Storage contract.
 */
import { describeStorageContract } from '../../ports/storage.contract.js';
import { MemoryStorage } from './memory-storage.js';

describeStorageContract('MemoryStorage', () => Promise.resolve(new MemoryStorage()));
