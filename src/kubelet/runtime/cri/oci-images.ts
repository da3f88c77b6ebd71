/**
 * The OCI images containerd needs here, built from the host since no registry
 * is reachable, and imported into a containerd's k8s.io namespace:
 *
 * - busybox (docker.io/library/busybox:1.35 and :latest): the host's busybox
 *   (Debian's busybox-static) as /bin/busybox with a symlink per applet, and
 *   /tmp; cmd ["sh"] as upstream's image.
 * - pause (registry.k8s.io/pause:3.6, the sandbox image of containerd's CRI
 *   config): a tiny static C program (gcc -static, libc6-dev) that waits for
 *   signals, reaps orphans and exits on SIGINT/SIGTERM; user 65535 as
 *   upstream's.
 * - hello (localhost/hello:1.0, the example app): this machine's node with its
 *   shared libraries and examples/hello/hello.js (hello-oci-image.ts).
 *
 * Each is laid out with umoci (an OCI layout), written as a docker archive
 * with skopeo (with every name as a tag), and imported with
 * `ctr -n k8s.io images import`. The archives stay in `workDir`, so a second
 * import reuses them unless `rebuild` is asked.
 */
import { execFile, spawn } from 'node:child_process';
import { access, chmod, copyFile, mkdir, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findHostBusybox } from '../process/busybox-image.js';
import { buildHelloRootfs, helloInputsDigest, type HelloRootfsOptions } from './hello-oci-image.js';

const run = promisify(execFile);

export type OciImageName = 'busybox' | 'pause' | 'hello';
export const OCI_IMAGE_NAMES: readonly OciImageName[] = ['busybox', 'pause', 'hello'];

export const OCI_IMAGE_TAGS: Readonly<Record<OciImageName, readonly string[]>> = {
  busybox: ['docker.io/library/busybox:1.35', 'docker.io/library/busybox:latest'],
  pause: ['registry.k8s.io/pause:3.6'],
  hello: ['localhost/hello:1.0'],
};

/** The pause process: sleeps in pause(2), reaps children, exits 0 on SIGINT/SIGTERM. */
export const PAUSE_C = `#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_quit(int sig) { (void)sig; _exit(0); }
static void on_child(int sig) {
  (void)sig;
  while (waitpid(-1, 0, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction quit = {0}, child = {0};
  quit.sa_handler = on_quit;
  sigaction(SIGINT, &quit, 0);
  sigaction(SIGTERM, &quit, 0);
  child.sa_handler = on_child;
  child.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  sigaction(SIGCHLD, &child, 0);
  for (;;) pause();
}
`;

const ARCHITECTURES: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };
export const ociArchitecture = (arch: string = process.arch): string => ARCHITECTURES[arch] ?? arch;

export interface BuildOciImageOptions {
  readonly image: OciImageName;
  /** Where the build happens and the archive stays (<workDir>/<image>.tar). */
  readonly workDir: string;
  /** busybox only: the binary to use (default: the host's). */
  readonly busyboxPath?: string;
  /** hello only: the app and the node binary to use (default: this checkout's app, this process's node). */
  readonly hello?: HelloRootfsOptions;
  /** Build even when the archive exists. */
  readonly rebuild?: boolean;
}

export interface BuiltOciArchive {
  readonly image: OciImageName;
  readonly archive: string;
  readonly tags: readonly string[];
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Runs a tool, naming it and its stderr when it fails (a missing tool says which package brings it). */
async function tool(file: string, args: readonly string[], options: { cwd?: string; input?: string } = {}): Promise<string> {
  if (options.input !== undefined) {
    return new Promise((resolve, reject) => {
      const child = spawn(file, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('error', (e) => reject(toolError(file, args, e.message)));
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(toolError(file, args, err.trim() || `exit code ${code}`))));
      child.stdin.end(options.input);
    });
  }
  try {
    const { stdout } = await run(file, [...args], { cwd: options.cwd, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (e: unknown) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    throw toolError(file, args, err.code === 'ENOENT' ? 'not found' : (err.stderr?.trim() || err.message));
  }
}

const PACKAGES: Readonly<Record<string, string>> = { umoci: 'umoci', skopeo: 'skopeo', gcc: 'gcc and libc6-dev', ctr: 'containerd', ldd: 'libc-bin' };
function toolError(file: string, args: readonly string[], detail: string): Error {
  const hint = PACKAGES[file] && detail === 'not found' ? ` (install ${PACKAGES[file]}: scripts/system-deps.sh)` : '';
  return new Error(`${file} ${args.join(' ')}: ${detail}${hint}`);
}

async function buildRootfs(image: OciImageName, dir: string, busyboxPath: string | undefined, hello: HelloRootfsOptions = {}): Promise<{ config: string[] }> {
  await mkdir(dir, { recursive: true });
  const arch = ['--os', 'linux', '--architecture', ociArchitecture()];
  if (image === 'pause') {
    await tool('gcc', ['-static', '-Os', '-s', '-x', 'c', '-o', join(dir, 'pause'), '-'], { input: PAUSE_C });
    return { config: ['--config.entrypoint', '/pause', '--config.user', '65535:65535', ...arch] };
  }
  if (image === 'hello') return { config: [...(await buildHelloRootfs(dir, tool, hello)), ...arch] };
  const busybox = busyboxPath ?? (await findHostBusybox());
  if (!busybox) throw new Error('no busybox found on this host: install Debian\'s busybox-static (scripts/system-deps.sh)');
  await mkdir(join(dir, 'bin'), { recursive: true });
  await mkdir(join(dir, 'tmp'));
  await chmod(join(dir, 'tmp'), 0o1777);
  await copyFile(busybox, join(dir, 'bin', 'busybox'));
  await chmod(join(dir, 'bin', 'busybox'), 0o755);
  const applets = (await tool(busybox, ['--list'])).split('\n').map((a) => a.trim()).filter((a) => a !== '' && a !== 'busybox' && !a.includes('/'));
  for (const a of applets) await symlink('busybox', join(dir, 'bin', a));
  return {
    config: ['--config.cmd', 'sh', '--config.env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...arch],
  };
}

/** Builds one image into <workDir>/<image>.tar (a docker archive tagged with every name of the image). */
export async function buildOciArchive(options: BuildOciImageOptions): Promise<BuiltOciArchive> {
  const tags = OCI_IMAGE_TAGS[options.image];
  // hello's archive is named after what it is made of (the app, the node binary), so a changed app is built again.
  const archive = join(options.workDir, options.image === 'hello' ? `hello-${await helloInputsDigest(options.hello)}.tar` : `${options.image}.tar`);
  if (!options.rebuild && (await exists(archive))) return { image: options.image, archive, tags };
  const scratch = join(options.workDir, `${options.image}.building-${process.pid}`);
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  try {
    const rootfs = join(scratch, 'rootfs');
    const { config } = await buildRootfs(options.image, rootfs, options.busyboxPath, options.hello);
    const layout = join(scratch, 'oci');
    const ref = `${layout}:${options.image}`;
    await tool('umoci', ['init', '--layout', layout]);
    await tool('umoci', ['new', '--image', ref]);
    // `insert <dir> /` puts the directory's contents at the root of the image.
    await tool('umoci', ['insert', '--image', ref, rootfs, '/']);
    await tool('umoci', ['config', '--image', ref, ...config]);
    const partial = join(scratch, 'image.tar');
    const extra = tags.slice(1).flatMap((t) => ['--additional-tag', t]);
    await tool('skopeo', ['copy', '--quiet', ...extra, `oci:${ref}`, `docker-archive:${partial}:${tags[0]}`]);
    await rename(partial, archive);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return { image: options.image, archive, tags };
}

export interface ImportOciArchiveOptions {
  /** containerd's socket (its grpc address, not the CRI endpoint URL). */
  readonly containerdAddress: string;
  readonly archive: string;
  /** containerd namespace; the CRI plugin's is k8s.io. */
  readonly namespace?: string;
  readonly ctrPath?: string;
}

export async function importOciArchive(options: ImportOciArchiveOptions): Promise<void> {
  const address = options.containerdAddress.replace(/^unix:\/\//, '');
  await tool(options.ctrPath ?? 'ctr', ['--address', address, '--namespace', options.namespace ?? 'k8s.io', 'images', 'import', options.archive]);
}

export interface BuildAndImportOptions {
  readonly images: readonly OciImageName[];
  readonly containerdAddress: string;
  readonly workDir: string;
  readonly busyboxPath?: string;
  readonly rebuild?: boolean;
  readonly ctrPath?: string;
}

/** Builds (or reuses) each image's archive and imports it; returns the names now present. */
export async function buildAndImportImages(options: BuildAndImportOptions): Promise<string[]> {
  const names: string[] = [];
  for (const image of options.images) {
    const built = await buildOciArchive({
      image,
      workDir: options.workDir,
      ...(options.busyboxPath !== undefined ? { busyboxPath: options.busyboxPath } : {}),
      ...(options.rebuild !== undefined ? { rebuild: options.rebuild } : {}),
    });
    await importOciArchive({
      containerdAddress: options.containerdAddress,
      archive: built.archive,
      ...(options.ctrPath !== undefined ? { ctrPath: options.ctrPath } : {}),
    });
    names.push(...built.tags);
  }
  return names;
}
