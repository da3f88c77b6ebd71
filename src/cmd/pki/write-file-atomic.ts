/**
 * Atomic file writes for the PKI: a reader (or a crash) never sees half a key
 * or half a kubeconfig.
 */
import { randomBytes } from 'node:crypto';
import { chmod, rename, rm, writeFile } from 'node:fs/promises';

/** Options for {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** File mode, e.g. 0o600 for private keys and kubeconfigs, 0o644 for certificates. */
  mode: number;
}

/**
 * Writes `data` to a temporary file beside `path` (created with `mode`), then
 * renames it over `path`. The final file has exactly `mode`, whatever the
 * umask and whatever mode an earlier file at `path` had.
 *
 * @example
 * await writeFileAtomic('/data/pki/ca.key', keyPem, { mode: 0o600 });
 */
export async function writeFileAtomic(path: string, data: string, options: WriteFileAtomicOptions): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temporary, data, { mode: options.mode, flag: 'wx' });
    await chmod(temporary, options.mode);
    await rename(temporary, path);
  } catch (e: unknown) {
    await rm(temporary, { force: true });
    throw new Error(`writing ${path} failed`, { cause: e });
  }
}
