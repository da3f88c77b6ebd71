/**
 * Images of the process runtime: an image is a local directory
 *
 *   <imagesDir>/<registry>/<repository path>/<tag>/
 *     bin/         executables, put first on the container's PATH
 *     image.json   optional: the defaults an OCI image config would carry,
 *                  { "entrypoint": [..], "cmd": [..], "env": ["K=V"], "workingDir": "/", "user": "1000" }
 *
 * Names resolve as docker does: `busybox:1.35`, `library/busybox:1.35` and
 * `docker.io/library/busybox:1.35` are all <imagesDir>/docker.io/library/busybox/1.35;
 * a missing tag is `latest`; a first component with a dot or colon (or
 * `localhost`) is a registry. A tag directory may be a symlink to another (one
 * image, several tags). Digests (`@sha256:…`) do not resolve: there are no
 * manifests here. The id is a sha256 over the config and the bin/ listing.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink, realpath, rm, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Image, ImageFsInfo, ImageService } from '../interface.js';

export interface ImageConfig {
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  readonly env?: readonly string[];
  readonly workingDir?: string;
  readonly user?: string;
}

export interface ImageReference {
  readonly registry: string;
  readonly repository: string;
  readonly tag: string;
}

export interface ResolvedImage {
  /** The fully qualified name, e.g. docker.io/library/busybox:1.35. */
  readonly name: string;
  readonly dir: string;
  readonly binDir: string;
  readonly id: string;
  readonly config: ImageConfig;
  readonly size: number;
}

const DOCKER_HUB = 'docker.io';

/** Parses an image name the way docker normalises it; undefined for names this runtime cannot resolve. */
export function parseImageReference(name: string): ImageReference | undefined {
  if (name === '' || name.includes('@')) return undefined;
  const parts = name.split('/');
  const first = parts[0]!;
  let registry = DOCKER_HUB;
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    registry = first;
    parts.shift();
  }
  const last = parts[parts.length - 1]!;
  const colon = last.lastIndexOf(':');
  let tag = 'latest';
  if (colon >= 0) {
    tag = last.slice(colon + 1);
    parts[parts.length - 1] = last.slice(0, colon);
  }
  if (registry === DOCKER_HUB && parts.length === 1) parts.unshift('library');
  const unsafe = (c: string): boolean => c === '' || c === '.' || c === '..' || c.includes('\\') || c.includes('\0');
  if ([registry, tag, ...parts].some(unsafe)) return undefined;
  return { registry, repository: parts.join('/'), tag };
}

export const formatImageReference = (r: ImageReference): string => `${r.registry}/${r.repository}:${r.tag}`;

export function imageDirectory(imagesDir: string, r: ImageReference): string {
  return join(imagesDir, r.registry, ...r.repository.split('/'), r.tag);
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function readImageConfig(dir: string): Promise<{ config: ImageConfig; text: string }> {
  let text: string;
  try {
    text = await readFile(join(dir, 'image.json'), 'utf8');
  } catch (e: unknown) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { config: {}, text: '{}' };
    throw e;
  }
  return { config: JSON.parse(text) as ImageConfig, text };
}

/** Reads an image directory (undefined when it is not one). */
export async function readImage(imagesDir: string, name: string): Promise<ResolvedImage | undefined> {
  const ref = parseImageReference(name);
  if (!ref) return undefined;
  const dir = imageDirectory(imagesDir, ref);
  const binDir = join(dir, 'bin');
  if (!(await isDirectory(binDir))) return undefined;
  const { config, text } = await readImageConfig(dir);
  const hash = createHash('sha256').update(text);
  let size = Buffer.byteLength(text);
  for (const entry of (await readdir(binDir)).sort()) {
    const info = await lstat(join(binDir, entry));
    const target = info.isSymbolicLink() ? await readlink(join(binDir, entry)) : '';
    hash.update(`\n${entry}\0${info.size}\0${target}`);
    size += info.size;
  }
  return { name: formatImageReference(ref), dir, binDir, id: `sha256:${hash.digest('hex')}`, config, size };
}

function toImage(resolved: ResolvedImage, repoTags: string[]): Image {
  const user = resolved.config.user?.split(':')[0];
  const uid = user !== undefined && /^\d+$/.test(user) ? Number(user) : undefined;
  return {
    id: resolved.id,
    repoTags,
    repoDigests: [],
    size: resolved.size,
    ...(uid !== undefined ? { uid } : {}),
    ...(user !== undefined && uid === undefined ? { username: user } : {}),
    pinned: false,
  };
}

/** Every image directory under imagesDir, as fully qualified names. */
async function findImageNames(imagesDir: string): Promise<string[]> {
  const names: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 8) return;
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch {
      return;
    }
    if (depth >= 3 && entries.includes('bin') && (await isDirectory(join(dir, 'bin')))) {
      const parts = relative(imagesDir, dir).split(sep);
      const tag = parts.pop()!;
      const registry = parts.shift()!;
      names.push(`${registry}/${parts.join('/')}:${tag}`);
      return;
    }
    for (const e of entries.sort()) if (await isDirectory(join(dir, e))) await walk(join(dir, e), depth + 1);
  };
  await walk(imagesDir, 0);
  return names;
}

/**
 * How long after its last change an image directory must have been read for
 * the reading to be kept: the kernel stamps changes from a clock that
 * advances a tick at a time (up to 10 ms), so an entry added within the tick
 * of the reading may leave the stamps as they were.
 */
const SETTLED_MS = 50;

/** What an image's reading depends on, as `stat` saw it: bin/ (its entries) and image.json. */
function imageStamp(bin: Stats, config: Stats | undefined): string {
  return [bin.ino, bin.mtimeMs, bin.ctimeMs, config?.ino, config?.mtimeMs, config?.ctimeMs, config?.size].join(':');
}

export class ProcessImageService implements ImageService {
  /**
   * The last reading of each image directory and the stamp it was taken at.
   * Reading an image lstats every entry of bin/ (busybox has 268), and the
   * kubelet asks twice per container start (imageStatus, then createContainer);
   * two stats tell whether the last reading still holds. An entry rewritten in
   * place, bin/ itself unchanged, keeps the old reading's size and id: builds
   * replace the whole directory (busybox-image.ts, hello-image.ts).
   */
  private readonly readings = new Map<string, { readonly stamp: string; readonly image: ResolvedImage }>();

  constructor(private readonly imagesDir: string) {}

  async resolve(name: string): Promise<ResolvedImage | undefined> {
    const ref = parseImageReference(name);
    if (!ref) return undefined;
    const dir = imageDirectory(this.imagesDir, ref);
    const [bin, config] = await Promise.all([
      stat(join(dir, 'bin')).catch(() => undefined),
      stat(join(dir, 'image.json')).catch(() => undefined),
    ]);
    if (bin === undefined || !bin.isDirectory()) {
      this.readings.delete(dir);
      return undefined;
    }
    const stamp = imageStamp(bin, config);
    const last = this.readings.get(dir);
    if (last !== undefined && last.stamp === stamp) return last.image;
    const readAt = Date.now();
    const image = await readImage(this.imagesDir, name);
    const changedAt = Math.max(bin.mtimeMs, bin.ctimeMs, config?.mtimeMs ?? 0, config?.ctimeMs ?? 0);
    if (image !== undefined && readAt - changedAt >= SETTLED_MS) this.readings.set(dir, { stamp, image });
    else this.readings.delete(dir);
    return image;
  }

  async listImages(): Promise<Image[]> {
    const byId = new Map<string, { resolved: ResolvedImage; tags: string[] }>();
    for (const name of await findImageNames(this.imagesDir)) {
      const resolved = await this.resolve(name);
      if (!resolved) continue;
      const entry = byId.get(resolved.id) ?? { resolved, tags: [] };
      entry.tags.push(resolved.name);
      byId.set(resolved.id, entry);
    }
    return [...byId.values()].map((e) => toImage(e.resolved, e.tags));
  }

  async imageStatus(image: string): Promise<Image | undefined> {
    const resolved = await this.resolve(image);
    if (!resolved) return undefined;
    const real = await realpath(resolved.dir);
    const tags: string[] = [];
    for (const name of await findImageNames(this.imagesDir)) {
      const other = parseImageReference(name);
      if (other && (await realpath(imageDirectory(this.imagesDir, other)).catch(() => '')) === real) tags.push(name);
    }
    return toImage(resolved, tags.length > 0 ? tags : [resolved.name]);
  }

  /** Removes the name's directory (a tag symlink only unlinks that tag); idempotent. */
  async removeImage(image: string): Promise<void> {
    const ref = parseImageReference(image);
    if (!ref) return;
    await rm(imageDirectory(this.imagesDir, ref), { recursive: true, force: true });
  }

  async imageFsInfo(): Promise<ImageFsInfo[]> {
    let usedBytes = 0;
    let inodesUsed = 0;
    const walk = async (dir: string): Promise<void> => {
      let entries: string[];
      try {
        entries = await readdir(dir);
      } catch {
        return;
      }
      for (const e of entries) {
        const info = await lstat(join(dir, e));
        usedBytes += info.size;
        inodesUsed += 1;
        if (info.isDirectory()) await walk(join(dir, e));
      }
    };
    await walk(this.imagesDir);
    return [{ mountpoint: this.imagesDir, usedBytes, inodesUsed }];
  }
}
