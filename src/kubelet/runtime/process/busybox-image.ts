/**
 * Builds the busybox image of the process runtime from the host's busybox
 * (Debian's busybox-static): <dir>/bin/busybox is a copy of it and every applet
 * that `busybox --list` names is a symlink to it, so `sh`, `httpd`, `nc`, … are
 * found first on the container's PATH. image.json sets cmd ["sh"], as the
 * upstream busybox image does. The first name gets the directory; the other
 * names are symlinks to it (one image, several tags). A build replaces an
 * existing image atomically (built beside it, then renamed into place).
 */
import { execFile } from 'node:child_process';
import { access, constants, copyFile, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { imageDirectory, parseImageReference } from './images.js';

export const BUSYBOX_IMAGE_NAMES = ['docker.io/library/busybox:1.35', 'docker.io/library/busybox:latest'] as const;
const BUSYBOX_CANDIDATES = ['/bin/busybox', '/usr/bin/busybox', '/usr/local/bin/busybox', '/sbin/busybox'];

/** The host's busybox binary, or undefined when there is none (install busybox-static). */
export async function findHostBusybox(candidates: readonly string[] = BUSYBOX_CANDIDATES): Promise<string | undefined> {
  for (const c of candidates) {
    try {
      await access(c, constants.X_OK);
      return c;
    } catch {
      // try the next
    }
  }
  return undefined;
}

export interface BuildBusyboxImageOptions {
  readonly imagesDir: string;
  /** Default: the first of /bin/busybox, /usr/bin/busybox, … that exists. */
  readonly busyboxPath?: string;
  /** Default: docker.io/library/busybox:1.35 and :latest. */
  readonly names?: readonly string[];
}

export interface BuiltImage {
  readonly names: readonly string[];
  readonly dir: string;
  readonly applets: number;
}

export async function buildBusyboxImage(options: BuildBusyboxImageOptions): Promise<BuiltImage> {
  const busybox = options.busyboxPath ?? (await findHostBusybox());
  if (!busybox) throw new Error('no busybox found on this host: install Debian\'s busybox-static (apt-get install busybox-static)');
  const names = options.names ?? BUSYBOX_IMAGE_NAMES;
  const refs = names.map((n) => {
    const ref = parseImageReference(n);
    if (!ref) throw new Error(`invalid image name ${JSON.stringify(n)}`);
    return ref;
  });
  if (refs.length === 0) throw new Error('no image names given');
  const { stdout } = await promisify(execFile)(busybox, ['--list']);
  const applets = stdout.split('\n').map((a) => a.trim()).filter((a) => a !== '' && a !== 'busybox' && !a.includes('/'));

  const dir = imageDirectory(options.imagesDir, refs[0]!);
  const building = `${dir}.building-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  await mkdir(join(building, 'bin'), { recursive: true });
  await copyFile(busybox, join(building, 'bin', 'busybox'));
  for (const a of applets) await symlink('busybox', join(building, 'bin', a));
  await writeFile(join(building, 'image.json'), `${JSON.stringify({ cmd: ['sh'] })}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(building, dir);

  for (const ref of refs.slice(1)) {
    const tagDir = imageDirectory(options.imagesDir, ref);
    await mkdir(dirname(tagDir), { recursive: true });
    await rm(tagDir, { recursive: true, force: true });
    await symlink(relative(dirname(tagDir), dir), tagDir);
  }
  return { names: refs.map((r) => `${r.registry}/${r.repository}:${r.tag}`), dir, applets: applets.length };
}
