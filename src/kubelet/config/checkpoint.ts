/**
 * The checkpoint of the API pods: every change of the set the API source
 * delivers is written to `<root-dir>/checkpoints/api-pods.json` (a v1
 * PodList), atomically (a temporary file renamed over the old one), so that a
 * kubelet started while the API server cannot be reached still knows which
 * pods it was running. Writes are serialised and coalesced: while one is in
 * flight only the newest pending set is kept.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../machinery/logger.js';
import type { Pod } from '../types.js';

export const CHECKPOINT_FILE = 'api-pods.json';

export interface PodCheckpoint {
  /** The checkpointed pods, or undefined when there is no (readable) checkpoint. */
  load(): Promise<Pod[] | undefined>;
  /** Queue a write of this set. */
  save(pods: readonly Pod[]): void;
  /** Resolves once every queued write has been done (or failed). */
  flush(): Promise<void>;
}

export function newPodCheckpoint(options: { readonly dir: string; readonly logger: Logger }): PodCheckpoint {
  const file = join(options.dir, CHECKPOINT_FILE);
  let pending: readonly Pod[] | undefined;
  let writing: Promise<void> | undefined;
  let sequence = 0;

  const writeOne = async (pods: readonly Pod[]): Promise<void> => {
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.tmp-${process.pid}-${sequence++}`;
    await writeFile(tmp, JSON.stringify({ apiVersion: 'v1', kind: 'PodList', metadata: {}, items: pods }), { mode: 0o600 });
    await rename(tmp, file);
  };

  const drain = async (): Promise<void> => {
    while (pending !== undefined) {
      const pods = pending;
      pending = undefined;
      try {
        await writeOne(pods);
      } catch (e: unknown) {
        options.logger.error({ err: e, path: file }, 'failed to write the pod checkpoint');
      }
    }
  };

  return {
    async load(): Promise<Pod[] | undefined> {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (e: unknown) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') options.logger.error({ err: e, path: file }, 'cannot read the pod checkpoint');
        return undefined;
      }
      try {
        const list = JSON.parse(text) as { items?: unknown };
        if (!Array.isArray(list.items)) throw new Error('no items list');
        return list.items as Pod[];
      } catch (e: unknown) {
        options.logger.error({ err: e, path: file }, 'the pod checkpoint is corrupt; ignoring it');
        return undefined;
      }
    },
    save(pods: readonly Pod[]): void {
      pending = pods;
      writing ??= drain().finally(() => {
        writing = undefined;
      });
    },
    async flush(): Promise<void> {
      while (writing !== undefined) await writing;
    },
  };
}
