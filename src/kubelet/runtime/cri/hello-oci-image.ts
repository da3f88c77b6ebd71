/**
 * The root filesystem of the example app's OCI image (localhost/hello:1.0),
 * made from this machine since no registry is reachable:
 *
 *   <node's path>          this machine's node binary (process.execPath), at the same path
 *   <each library's path>  the shared libraries it loads, as `ldd` lists them (the
 *                          dynamic loader too), at the paths ldd gives, so the
 *                          binary's interpreter and search paths find them
 *   /app/hello.cjs         examples/hello/hello.js (.cjs: CommonJS with no package.json)
 *   /usr/local/bin/hello   a tiny static C launcher: exec node /app/hello.cjs "$@"
 *   /tmp                   mode 1777
 *
 * with entrypoint ["hello"] and PATH=/usr/local/bin:/usr/bin:/bin, so the
 * container runs the app and `kubectl exec POD -- hello readiness fail` finds
 * the launcher on PATH, with no shell in the image.
 */
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { findHelloAppSource } from '../process/hello-image.js';

/** Runs a tool and resolves with its stdout (oci-images.ts's runner: failures name the tool and its stderr). */
export type ToolRunner = (file: string, args: readonly string[], options?: { cwd?: string; input?: string }) => Promise<string>;

export const HELLO_APP_PATH = '/app/hello.cjs';
export const HELLO_LAUNCHER_PATH = '/usr/local/bin/hello';

/** The launcher: node on the app, with the container's arguments after it. */
export function helloLauncherC(nodePath: string): string {
  return `#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char *args[argc + 2];
  args[0] = "node";
  args[1] = ${JSON.stringify(HELLO_APP_PATH)};
  for (int i = 1; i < argc; i++) args[i + 1] = argv[i];
  args[argc + 1] = 0;
  execv(${JSON.stringify(nodePath)}, args);
  perror("hello: exec node");
  return 127;
}
`;
}

/**
 * The files a dynamically linked binary loads, from `ldd`'s output: each
 * `name => /path (0x…)` and the loader's `/path (0x…)`; the vDSO has no file.
 * A library ldd cannot find is an error: the image would not start.
 */
export function parseLddOutput(output: string): string[] {
  const paths: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '' || /^linux-(vdso|gate)\.so/.test(line) || /statically linked/.test(line)) continue;
    const missing = /^(\S+) => not found/.exec(line);
    if (missing) throw new Error(`ldd: ${missing[1]} not found`);
    const m = /^(?:\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (!m) throw new Error(`ldd: unexpected line ${JSON.stringify(line)}`);
    paths.push(m[1]!);
  }
  return [...new Set(paths)];
}

export interface HelloRootfsOptions {
  /** Default: examples/hello/hello.js of this checkout. */
  readonly appSource?: string;
  /** Default: process.execPath. */
  readonly nodePath?: string;
}

/** What the image is made from: the archive of other inputs is not reused. */
export async function helloInputsDigest(options: HelloRootfsOptions = {}): Promise<string> {
  const app = await readFile(options.appSource ?? (await findHelloAppSource()));
  const node = options.nodePath ?? process.execPath;
  return createHash('sha256').update(app).update(`\0${node}\0${node === process.execPath ? process.version : ''}`).digest('hex').slice(0, 12);
}

async function copyInto(rootfs: string, path: string): Promise<void> {
  const target = join(rootfs, path);
  await mkdir(dirname(target), { recursive: true });
  // copyFile follows symlinks: the image gets the file under the name the loader asks for.
  await copyFile(path, target);
  await chmod(target, 0o755);
}

/** Lays the hello image's files out under `rootfs`; returns umoci's config flags (without the architecture). */
export async function buildHelloRootfs(rootfs: string, tool: ToolRunner, options: HelloRootfsOptions = {}): Promise<string[]> {
  const nodePath = options.nodePath ?? process.execPath;
  if (!isAbsolute(nodePath)) throw new Error(`the node binary must be an absolute path, not ${JSON.stringify(nodePath)}`);
  const appSource = options.appSource ?? (await findHelloAppSource());
  await mkdir(rootfs, { recursive: true });
  for (const path of [nodePath, ...parseLddOutput(await tool('ldd', [nodePath]))]) await copyInto(rootfs, path);
  await mkdir(join(rootfs, dirname(HELLO_APP_PATH)), { recursive: true });
  await copyFile(appSource, join(rootfs, HELLO_APP_PATH));
  await mkdir(join(rootfs, dirname(HELLO_LAUNCHER_PATH)), { recursive: true });
  await tool('gcc', ['-static', '-Os', '-s', '-x', 'c', '-o', join(rootfs, HELLO_LAUNCHER_PATH), '-'], { input: helloLauncherC(nodePath) });
  await mkdir(join(rootfs, 'tmp'));
  await chmod(join(rootfs, 'tmp'), 0o1777);
  return ['--config.entrypoint', 'hello', '--config.env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'];
}
