/**
 * Builds the image of the example app (examples/hello/hello.js) for the
 * process runtime, localhost/hello:1.0 by default:
 *
 *   <dir>/app/hello.cjs   a copy of hello.js (.cjs: CommonJS wherever the directory is)
 *   <dir>/bin/hello       `exec <this machine's node> <dir>/app/hello.cjs "$@"`
 *   <dir>/image.json      entrypoint ["hello"]
 *
 * so a container of the image runs the app, and `kubectl exec POD -- hello
 * readiness fail` finds the launcher first on the container's PATH. The copy
 * keeps the image as it was built when the checkout changes. A build replaces
 * an existing image atomically (built beside it, then renamed into place);
 * further names are symlinks to the first (one image, several tags).
 */
import { access, chmod, copyFile, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { imageDirectory, parseImageReference, type ImageReference } from './images.js';

export const HELLO_IMAGE_NAMES = ['localhost/hello:1.0'] as const;
const HELLO_APP = join('examples', 'hello', 'hello.js');

/** examples/hello/hello.js of the checkout this module runs from (found by walking up from it). */
export async function findHelloAppSource(from: string = dirname(fileURLToPath(import.meta.url))): Promise<string> {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, HELLO_APP);
    try {
      await access(candidate);
      return candidate;
    } catch {
      if (dirname(dir) === dir) throw new Error(`no ${HELLO_APP} above ${from}: build the hello image from a k8ts checkout`);
    }
  }
}

/** A word for sh, single-quoted. */
export const shellQuote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

/** The launcher: node on the app's copy, with the container's arguments. */
export function helloLauncher(nodePath: string, appPath: string): string {
  return `#!/bin/sh\n# The example app of k8ts (examples/hello/hello.js), run by this machine's Node.js.\nexec ${shellQuote(nodePath)} ${shellQuote(appPath)} "$@"\n`;
}

export interface BuildHelloImageOptions {
  readonly imagesDir: string;
  /** Default: localhost/hello:1.0. */
  readonly names?: readonly string[];
  /** Default: examples/hello/hello.js of this checkout. */
  readonly appSource?: string;
  /** Default: the node running this process (process.execPath). */
  readonly nodePath?: string;
}

function parseNames(names: readonly string[]): ImageReference[] {
  if (names.length === 0) throw new Error('no image names given');
  return names.map((n) => {
    const ref = parseImageReference(n);
    if (!ref) throw new Error(`invalid image name ${JSON.stringify(n)}`);
    return ref;
  });
}

export interface BuiltHelloImage {
  readonly names: readonly string[];
  readonly dir: string;
  /** The node the launcher runs. */
  readonly nodePath: string;
}

export async function buildHelloImage(options: BuildHelloImageOptions): Promise<BuiltHelloImage> {
  const refs = parseNames(options.names ?? HELLO_IMAGE_NAMES);
  const appSource = options.appSource ?? (await findHelloAppSource());
  const nodePath = resolve(options.nodePath ?? process.execPath);
  // The launcher names the app by the image's final, absolute path.
  const dir = resolve(imageDirectory(options.imagesDir, refs[0]!));
  const building = `${dir}.building-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  try {
    await mkdir(join(building, 'bin'), { recursive: true });
    await mkdir(join(building, 'app'));
    await copyFile(appSource, join(building, 'app', 'hello.cjs'));
    await writeFile(join(building, 'bin', 'hello'), helloLauncher(nodePath, join(dir, 'app', 'hello.cjs')));
    await chmod(join(building, 'bin', 'hello'), 0o755);
    await writeFile(join(building, 'image.json'), `${JSON.stringify({ entrypoint: ['hello'] })}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(building, dir);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  for (const ref of refs.slice(1)) {
    const tagDir = resolve(imageDirectory(options.imagesDir, ref));
    await mkdir(dirname(tagDir), { recursive: true });
    await rm(tagDir, { recursive: true, force: true });
    await symlink(relative(dirname(tagDir), dir), tagDir);
  }
  return { names: refs.map((r) => `${r.registry}/${r.repository}:${r.tag}`), dir, nodePath };
}
