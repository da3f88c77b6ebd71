import { runStorageConformance } from '../testing/conformance.js';
import { newMemoryStorage } from './memory-storage.js';

runStorageConformance('memory', async () => newMemoryStorage());
