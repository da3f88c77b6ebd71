/**
 * A private containerd for tests: its own root, state, socket, CNI config and
 * opt directory under a temporary directory, with the busybox and pause images
 * built from the host and imported.
 *
 * With pod networks (the default) containerd runs inside a network namespace
 * the helper creates, so the CNI bridge, its veths and the ip_forward sysctl
 * that the bridge plugin sets all stay in there; the CNI config comes from a
 * template (bridge + host-local) that containerd fills in when the kubelet (or
 * a test) calls UpdateRuntimeConfig with the node's pod CIDR; until then only
 * host-network sandboxes run. Whatever talks to pod IPs (or to containerd's
 * streaming server, which listens on 127.0.0.1) must run in that namespace
 * too (`nsenter --net=/run/netns/<netns>`).
 *
 * With `podNetwork: false` containerd runs in the machine's namespace with no
 * CNI template at all (no bridge can ever appear): host-network pods only.
 *
 * stop() undoes it all, in the order containerd needs (its shims outlive it):
 * every sandbox stopped and removed through the CRI, containerd stopped by its
 * pid, any shim of this containerd still alive killed by pid, the cgroups it
 * left removed, the network namespace deleted, the directory removed.
 *
 * containerd needs root, cgroups, overlayfs and network namespaces; when the
 * machine lacks one, containerdUnavailableReason() says which, and tests skip
 * with that message. A containerd that is merely not installed is not a
 * reason: scripts/system-deps.sh installs it, and starting fails loudly.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, closeSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { newCriRuntime } from '../../../src/kubelet/runtime/cri/cri-runtime.js';
import { buildAndImportImages, type OciImageName } from '../../../src/kubelet/runtime/cri/oci-images.js';

const run = promisify(execFile);

export interface PrivateContainerdOptions {
  /** Images to build and import (default: busybox and pause). */
  readonly images?: readonly OciImageName[];
  /** Where image archives are built (default: inside the temporary directory). */
  readonly imageWorkDir?: string;
  /** cgroup parents (cgroupfs syntax, e.g. /kubepods) the tests use, removed depth-first at stop. */
  readonly cgroupParents?: readonly string[];
  /** The bridge device name inside the namespace (default k8tsbr0). */
  readonly bridge?: string;
  /** false: no network namespace and no CNI config, host-network sandboxes only (default true). */
  readonly podNetwork?: boolean;
}

export interface PrivateContainerd {
  readonly dir: string;
  /** containerd's socket path (for ctr --address). */
  readonly address: string;
  /** The CRI endpoint, unix:///…/containerd.sock. */
  readonly endpoint: string;
  /** The network namespace containerd and every pod network live in (a name under /run/netns); undefined without pod networks. */
  readonly netns: string | undefined;
  readonly logFile: string;
  readonly pid: number;
  /** Image names imported. */
  readonly images: readonly string[];
  /** The end of containerd's log, for failure messages. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

let unavailable: Promise<string | undefined> | undefined;

/** Why containerd cannot run on this machine, or undefined when it can. */
export function containerdUnavailableReason(): Promise<string | undefined> {
  unavailable ??= (async () => {
    if (process.platform !== 'linux') return 'containerd tests need Linux';
    if (process.getuid?.() !== 0) return 'containerd tests need root (containerd, runc and network namespaces do)';
    if (!existsSync('/sys/fs/cgroup')) return 'containerd tests need cgroups (/sys/fs/cgroup is missing)';
    if (!/\soverlay$/m.test(readFileSync('/proc/filesystems', 'utf8'))) return 'containerd tests need overlayfs (not in /proc/filesystems)';
    const probe = `k8ts-probe-${randomBytes(4).toString('hex')}`;
    try {
      await run('ip', ['netns', 'add', probe]);
    } catch (e: unknown) {
      const err = e as NodeJS.ErrnoException & { stderr?: string };
      if (err.code === 'ENOENT') return undefined; // iproute2 missing: system-deps installs it; startPrivateContainerd fails loudly
      return `containerd tests need network namespaces: ip netns add failed: ${err.stderr?.trim() ?? err.message}`;
    }
    await run('ip', ['netns', 'del', probe]).catch(() => undefined);
    return undefined;
  })();
  return unavailable;
}

const toml = (s: string): string => JSON.stringify(s);

function configToml(dir: string, podNetwork: boolean): string {
  return `version = 2
root = ${toml(join(dir, 'root'))}
state = ${toml(join(dir, 'state'))}
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = ${toml(join(dir, 'run', 'containerd.sock'))}

[plugins."io.containerd.internal.v1.opt"]
  path = ${toml(join(dir, 'opt'))}

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.6"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = ${toml(join(dir, 'cni', 'net.d'))}
${podNetwork ? `    conf_template = ${toml(join(dir, 'cni', 'template.conflist'))}\n` : ''}  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
`;
}

/** bridge + host-local over the pod CIDR containerd substitutes; no masquerade (no iptables rules). */
function cniTemplate(dir: string, bridge: string): string {
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'k8ts-pods',
      plugins: [
        {
          type: 'bridge',
          bridge,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: { type: 'host-local', ranges: [[{ subnet: '{{.PodCIDR}}' }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: join(dir, 'cni', 'ipam') },
        },
      ],
    },
    null,
    2,
  )}\n`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of containerd-shim processes serving this containerd (their command line names its socket). */
function shimsOf(address: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmdline[0]?.includes('containerd-shim') && cmdline.includes(address)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** rmdir a cgroup directory in every v1 hierarchy (and the unified one), deepest first; busy or missing ones stay. */
function removeCgroup(relative: string): void {
  const hierarchies = readdirSync('/sys/fs/cgroup').map((h) => join('/sys/fs/cgroup', h));
  for (const root of ['/sys/fs/cgroup', ...hierarchies]) {
    const top = join(root, relative);
    const walk = (dir: string): void => {
      let entries: string[];
      try {
        entries = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
      } catch {
        return;
      }
      for (const e of entries) walk(join(dir, e));
      try {
        rmdirSync(dir);
      } catch {
        // busy or not ours
      }
    };
    walk(top);
  }
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, failEarly: () => string | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failure = failEarly();
    if (failure !== undefined) throw new Error(failure);
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function startPrivateContainerd(options: PrivateContainerdOptions = {}): Promise<PrivateContainerd> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-containerd-'));
  const bridge = options.bridge ?? 'k8tsbr0';
  for (const d of ['root', 'state', 'run', 'opt', 'cni/net.d', 'cni/ipam']) mkdirSync(join(dir, d), { recursive: true });
  const podNetwork = options.podNetwork ?? true;
  writeFileSync(join(dir, 'config.toml'), configToml(dir, podNetwork));
  if (podNetwork) writeFileSync(join(dir, 'cni', 'template.conflist'), cniTemplate(dir, bridge));
  const address = join(dir, 'run', 'containerd.sock');
  const endpoint = `unix://${address}`;
  const logFile = join(dir, 'containerd.log');
  const netns = podNetwork ? `k8ts-ctd-${randomBytes(4).toString('hex')}` : undefined;
  const logTail = (lines = 30): string => {
    try {
      return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };

  let child: ChildProcess | undefined;
  let netnsMade = false;
  const cleanupAfterFailure = async (): Promise<void> => {
    if (child?.pid !== undefined && isAlive(child.pid)) {
      process.kill(child.pid, 'SIGKILL');
      await new Promise((resolve) => child!.once('close', resolve));
    }
    if (netnsMade && netns !== undefined) await run('ip', ['netns', 'del', netns]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (netns !== undefined) {
      await run('ip', ['netns', 'add', netns]);
      netnsMade = true;
      await run('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
    }
    const log = openSync(logFile, 'a');
    try {
      const containerd = ['containerd', '--config', join(dir, 'config.toml')];
      // nsenter changes only the network namespace (ip netns exec would also remount /sys, hiding the cgroups).
      const argv = netns !== undefined ? ['nsenter', `--net=/run/netns/${netns}`, ...containerd] : containerd;
      child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', log, log] });
    } finally {
      closeSync(log);
    }
    let exited: string | undefined;
    let spawnError: string | undefined;
    child.on('error', (e) => (spawnError = e.message));
    child.on('exit', (code, signal) => (exited = `containerd exited (${signal ?? code}) during start; its log ends:\n${logTail()}`));
    const probe = newCriRuntime({ endpoint, timeoutMs: 2_000 });
    try {
      await waitFor(
        'containerd to answer on its CRI socket',
        async () => (existsSync(address) ? probe.runtime.version().then(() => true, () => undefined) : undefined),
        30_000,
        () => spawnError ?? exited,
      );
    } finally {
      await probe.close();
    }
    const images = await buildAndImportImages({
      images: options.images ?? ['busybox', 'pause'],
      containerdAddress: address,
      workDir: options.imageWorkDir ?? join(dir, 'images'),
    });
    const started = child;
    const pid = started.pid!;
    let stopped: Promise<void> | undefined;
    // Last resort when the test process dies before its `after` hook (an uncaught error): containerd must not outlive it.
    const killOnExit = (): void => {
      if (stopped === undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    };
    process.once('exit', killOnExit);
    return {
      dir,
      address,
      endpoint,
      netns,
      logFile,
      pid,
      images,
      logTail,
      stop: () => {
        if (stopped === undefined) {
          process.off('exit', killOnExit);
          stopped = stopPrivateContainerd({ started, pid, dir, address, endpoint, netns, cgroupParents: options.cgroupParents ?? [] });
        }
        return stopped;
      },
    };
  } catch (e: unknown) {
    const tail = logTail();
    await cleanupAfterFailure();
    throw new Error(`${e instanceof Error ? e.message : String(e)}${tail ? `\ncontainerd log:\n${tail}` : ''}`, { cause: e });
  }
}

async function stopPrivateContainerd(p: {
  started: ChildProcess;
  pid: number;
  dir: string;
  address: string;
  endpoint: string;
  netns: string | undefined;
  cgroupParents: readonly string[];
}): Promise<void> {
  const problems: string[] = [];
  const ids: string[] = [];
  // 1. Every sandbox (and with it its containers) through the CRI, while containerd runs.
  if (isAlive(p.pid)) {
    const cri = newCriRuntime({ endpoint: p.endpoint, timeoutMs: 30_000 });
    try {
      for (const c of await cri.runtime.listContainers()) ids.push(c.id);
      for (const s of await cri.runtime.listPodSandbox()) {
        ids.push(s.id);
        try {
          await cri.runtime.stopPodSandbox(s.id);
          await cri.runtime.removePodSandbox(s.id);
        } catch (e: unknown) {
          problems.push(`removing sandbox ${s.id}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    } catch (e: unknown) {
      problems.push(`listing sandboxes: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await cri.close();
    }
  }
  // 2. containerd itself, by pid.
  const closed = new Promise<void>((resolve) => {
    if (p.started.exitCode !== null || p.started.signalCode !== null) resolve();
    else p.started.once('close', () => resolve());
  });
  if (isAlive(p.pid)) {
    process.kill(p.pid, 'SIGTERM');
    const timer = setTimeout(() => (isAlive(p.pid) ? process.kill(p.pid, 'SIGKILL') : undefined), 10_000);
    await closed;
    clearTimeout(timer);
  }
  // 3. Shims of this containerd that outlived their sandboxes (only when the CRI cleanup failed).
  for (const pid of shimsOf(p.address)) {
    problems.push(`shim ${pid} was still running`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  // 4. cgroups: containerd's default parent for each id, then the tests' parents.
  for (const id of ids) removeCgroup(join('k8s.io', id));
  removeCgroup('k8s.io'); // only when empty: another containerd's containers keep it busy
  for (const parent of p.cgroupParents) removeCgroup(parent.replace(/^\//, ''));
  // 5. The namespace (its bridge goes with it) and the directory.
  if (p.netns !== undefined) await run('ip', ['netns', 'del', p.netns]).catch((e: unknown) => problems.push(`ip netns del ${p.netns}: ${e instanceof Error ? e.message : String(e)}`));
  try {
    rmSync(p.dir, { recursive: true, force: true });
  } catch (e: unknown) {
    problems.push(`removing ${p.dir}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (problems.length > 0) throw new Error(`private containerd teardown:\n${problems.join('\n')}`);
}
