/**
 * Writes a volume's files so that a reader never sees half an update, as
 * upstream's AtomicWriter (pkg/volume/util/atomic_writer.go) does:
 *
 *   <dir>/..2026_11_30_18_43_53.123456/   the real files of this version
 *   <dir>/..data -> ..2026_11_30_18_43_53.123456
 *   <dir>/key    -> ..data/key            one link per top-level name
 *
 * An update writes a new timestamped directory, points a `..data_tmp` link at
 * it and renames that over `..data` (rename is atomic), then adds links for
 * new names, removes those of names that went away, and deletes the old
 * directory. Until the rename, readers see the old version whole. Nothing is
 * written when the files on disk already have the payload's contents and modes.
 * Paths starting with `..` are reserved. Callers serialise writes to one dir.
 */
import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rename, rm, symlink, unlink, chmod, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, posix } from 'node:path';

export interface FileProjection {
  readonly data: Buffer;
  /** Permission bits (the API's defaultMode/mode: 420 is 0644). */
  readonly mode: number;
}

/** Relative path → contents. */
export type Payload = ReadonlyMap<string, FileProjection>;

export interface AtomicWriteOptions {
  /** For the timestamped directory's name (default: now). */
  readonly now?: () => Date;
  /** Test hook: runs after the new version is on disk, before `..data` moves to it. */
  readonly beforeSwap?: (newDir: string) => Promise<void> | void;
}

const DATA_DIR = '..data';
const NEW_DATA_DIR = '..data_tmp';
const MAX_FILE_NAME_LENGTH = 255;
const MAX_PATH_LENGTH = 4096;

/** Upstream's checks of a payload path (not empty, relative, no `..` element, not starting with `..`, length limits). */
export function validatePayloadPath(path: string): void {
  if (path === '') throw new Error(`invalid path: must not be empty: ""`);
  if (isAbsolute(path)) throw new Error(`invalid path: must be relative path: ${path}`);
  if (path.length > MAX_PATH_LENGTH) throw new Error(`invalid path: must be less than or equal to ${MAX_PATH_LENGTH} characters`);
  const items = path.split('/');
  for (const item of items) {
    if (item === '..') throw new Error(`invalid path: must not contain '..': ${path}`);
    if (Buffer.byteLength(item) > MAX_FILE_NAME_LENGTH) throw new Error(`invalid path: filenames must be less than or equal to ${MAX_FILE_NAME_LENGTH} characters`);
  }
  const first = items[0] ?? '';
  if (first.startsWith('..') && first.length > 2) throw new Error(`invalid path: must not start with '..': ${path}`);
}

/** Go's filepath.Clean for a relative path: `./a//b/` → `a/b`. */
const cleanPath = (path: string): string => posix.normalize(path).replace(/\/+$/, '');

/** `..2006_01_02_15_04_05.` as upstream names its directories (UTC). */
function timestampPrefix(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `..${date.getUTCFullYear()}_${pad(date.getUTCMonth() + 1)}_${pad(date.getUTCDate())}_${pad(date.getUTCHours())}_${pad(date.getUTCMinutes())}_${pad(date.getUTCSeconds())}.`;
}

const isMissing = (e: unknown): boolean => (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/** Every path under dir, relative to it (directories too). */
async function walk(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    out.push(relative);
    if (entry.isDirectory()) out.push(...(await walk(join(dir, entry.name), relative)));
  }
  return out;
}

async function differs(path: string, file: FileProjection): Promise<boolean> {
  try {
    const stat = await lstat(path);
    if (!stat.isFile() || (stat.mode & 0o7777) !== file.mode) return true;
    return !(await readFile(path)).equals(file.data);
  } catch (e: unknown) {
    // Missing, or unreadable to us (a mode without the owner's read bit): write it again.
    if (isMissing(e) || (e as NodeJS.ErrnoException | undefined)?.code === 'EACCES') return true;
    throw e;
  }
}

/** Makes dir hold exactly the payload. Resolves true when it wrote a new version, false when nothing changed. */
export async function writeAtomically(targetDir: string, payload: Payload, options: AtomicWriteOptions = {}): Promise<boolean> {
  const clean = new Map<string, FileProjection>();
  for (const [path, file] of payload) {
    validatePayloadPath(path);
    clean.set(cleanPath(path), file);
  }

  const dataDir = join(targetDir, DATA_DIR);
  let oldName = '';
  try {
    oldName = await readlink(dataDir);
  } catch (e: unknown) {
    if (!isMissing(e)) throw e;
  }

  let toRemove: string[] = [];
  if (oldName !== '') {
    const oldDir = join(targetDir, oldName);
    const wanted = new Set<string>();
    for (const path of clean.keys()) {
      for (let p = path; p !== '.' && p !== ''; p = posix.dirname(p)) wanted.add(p);
    }
    try {
      toRemove = (await walk(oldDir)).filter((p) => !wanted.has(p));
    } catch (e: unknown) {
      if (!isMissing(e)) throw e;
    }
    let changed = false;
    for (const [path, file] of clean) {
      if (await differs(join(oldDir, path), file)) {
        changed = true;
        break;
      }
    }
    if (!changed && toRemove.length === 0) return false;
  }

  const newDir = await mkdtemp(join(targetDir, timestampPrefix((options.now ?? (() => new Date()))())));
  try {
    await chmod(newDir, 0o755);
    for (const [path, file] of clean) {
      const full = join(newDir, path);
      await mkdir(posix.dirname(full), { recursive: true, mode: 0o755 });
      await writeFile(full, file.data, { mode: file.mode });
      await chmod(full, file.mode); // the umask must not narrow the mode
    }
    await options.beforeSwap?.(newDir);
    const tmpLink = join(targetDir, NEW_DATA_DIR);
    await rm(tmpLink, { force: true });
    await symlink(basename(newDir), tmpLink);
    await rename(tmpLink, dataDir);
  } catch (e: unknown) {
    await rm(newDir, { recursive: true, force: true });
    throw e;
  }

  for (const path of clean.keys()) {
    const top = path.split('/')[0] ?? path;
    const visible = join(targetDir, top);
    try {
      await lstat(visible);
    } catch (e: unknown) {
      if (!isMissing(e)) throw e;
      await symlink(join(DATA_DIR, top), visible);
    }
  }
  for (const path of toRemove) {
    if (path.includes('/')) continue; // only the top-level links live in the target dir
    await unlink(join(targetDir, path)).catch((e: unknown) => {
      if (!isMissing(e)) throw e;
    });
  }
  if (oldName !== '') await rm(join(targetDir, oldName), { recursive: true, force: true });
  return true;
}
