/**
 * hostPath: the host's own path, checked as upstream's plugin checks it
 * (pkg/volume/hostpath): DirectoryOrCreate makes a missing directory (0755)
 * and FileOrCreate a missing empty file (0644); Directory, File, Socket,
 * CharDevice and BlockDevice must exist with that type (symlinks followed);
 * "" (or no type) checks nothing. The kubelet never deletes what a hostPath
 * names.
 */
import { mkdir, open, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';

const TYPES: Readonly<Record<string, { readonly description: string; readonly matches: (s: Stats) => boolean }>> = {
  Directory: { description: 'directory', matches: (s) => s.isDirectory() },
  File: { description: 'file', matches: (s) => s.isFile() },
  Socket: { description: 'socket file', matches: (s) => s.isSocket() },
  CharDevice: { description: 'character device', matches: (s) => s.isCharacterDevice() },
  BlockDevice: { description: 'block device', matches: (s) => s.isBlockDevice() },
};

/** The type name upstream's GetFileType reports. */
function typeOf(s: Stats): string {
  for (const [name, type] of Object.entries(TYPES)) if (type.matches(s)) return name;
  throw new Error('only recognise file, directory, socket, block device and character device');
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

async function typeMatchedOrError(path: string, expected: string): Promise<void> {
  const type = TYPES[expected];
  if (type === undefined) throw new Error(`${expected} is an invalid volume type`);
  const s = await statOrUndefined(path);
  if (s === undefined) throw new Error(`hostPath ${path} doesn't exist`);
  let actual: string;
  try {
    actual = typeOf(s);
  } catch (e: unknown) {
    throw new Error(`hostPath type check failed, ${path} is not a ${type.description}, unable to determine its type: ${(e as Error).message}`);
  }
  if (actual !== expected) throw new Error(`hostPath type check failed: ${path} is not a ${type.description}, it's a ${actual}`);
}

/** Checks (and for the *OrCreate types makes) the host path; resolves with it. */
export async function setUpHostPath(source: { readonly path: string; readonly type?: string }): Promise<string> {
  const { path } = source;
  if (path.split('/').includes('..')) throw new Error(`invalid HostPath \`${path}\`: must not contain '..'`);
  const type = source.type ?? '';
  switch (type) {
    case '':
      return path;
    case 'DirectoryOrCreate':
      if ((await statOrUndefined(path)) === undefined) {
        await mkdir(path, { recursive: true, mode: 0o755 });
        return path;
      }
      await typeMatchedOrError(path, 'Directory');
      return path;
    case 'FileOrCreate':
      if ((await statOrUndefined(path)) === undefined) {
        const handle = await open(path, 'a', 0o644);
        await handle.close();
        return path;
      }
      await typeMatchedOrError(path, 'File');
      return path;
    default:
      await typeMatchedOrError(path, type);
      return path;
  }
}
