/**
 * A real, single-member etcd for tests and benchmarks: the installed binary on
 * 127.0.0.1, free ports, a temporary data directory, fsync left on.
 *
 * @example
 *   let etcd: EtcdProcess;
 *   before(async () => { etcd = await startEtcd(); });
 *   after(() => etcd.stop());
 *   … newEtcdStorage({ endpoints: [etcd.endpoint] }) …
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdClient } from '../etcd-client.js';

export interface EtcdProcess {
  /** The client URL, e.g. `http://127.0.0.1:40123`. */
  readonly endpoint: string;
  readonly pid: number;
  /** etcd's --data-dir. */
  readonly dataDir: string;
  /** etcd's log (stderr), in the same temporary directory. */
  readonly logFile: string;
  /** Stop etcd (SIGTERM, then SIGKILL after 10 s) and remove its data directory. Idempotent. */
  stop(): Promise<void>;
}

export interface StartEtcdOptions {
  /** The etcd binary (default: $ETCD_BINARY or /usr/bin/etcd). */
  readonly binary?: string;
  /** How long to wait for etcd to answer (default 30 s). */
  readonly startTimeoutMs?: number;
  /** More etcd flags, e.g. `['--max-request-bytes=2097152']`. */
  readonly extraArgs?: readonly string[];
}

const HOST = '127.0.0.1';
const LOG_TAIL_BYTES = 8 * 1024;
const STOP_GRACE_MS = 10_000;
const POLL_INTERVAL_MS = 20;
const RANGE_TRY_MS = 1000;
const START_ATTEMPTS = 3; // a free port can be taken between our probe and etcd's bind

/** Start etcd and resolve once it answers a linearizable read. */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdProcess> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await startOnce(options);
    } catch (e: unknown) {
      lastError = e;
      if (!(e instanceof PortTakenError)) throw e;
    }
  }
  throw lastError;
}

class PortTakenError extends Error {}

async function startOnce(options: StartEtcdOptions): Promise<EtcdProcess> {
  const binary = options.binary ?? process.env['ETCD_BINARY'] ?? '/usr/bin/etcd';
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  const ports = await freePorts(2);
  const clientPort = ports[0]!;
  const peerPort = ports[1]!;
  const endpoint = `http://${HOST}:${clientPort}`;
  const peerUrl = `http://${HOST}:${peerPort}`;
  const root = mkdtempSync(join(tmpdir(), 'k8ts-etcd-'));
  const dataDir = join(root, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const logFile = join(root, 'etcd.log');
  const name = 'k8ts-test';
  const args = [
    `--name=${name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=${name}=${peerUrl}`,
    `--initial-cluster-state=new`,
    `--initial-cluster-token=k8ts-${randomBytes(4).toString('hex')}`,
    '--logger=zap',
    '--log-level=warn',
    // Progress notifications answer StorageWatch.requestProgress (etcd's default is 10 minutes).
    '--experimental-watch-progress-notify-interval=100ms',
    ...(options.extraArgs ?? []),
  ];
  // Our own ETCD_* variables would override the flags above.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_')));
  // stderr goes to a file: no pipe to drain, and nothing keeps our event loop alive.
  const logFd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(binary, args, { stdio: ['ignore', 'ignore', logFd], env });
  } finally {
    closeSync(logFd);
  }
  const logTail = (): string => {
    try {
      return readFileSync(logFile, 'utf8').slice(-LOG_TAIL_BYTES);
    } catch {
      return '';
    }
  };
  const exited = new Promise<string>((resolve) => {
    child.once('error', (e: Error) => resolve(`could not run ${binary}: ${e.message}`));
    child.once('exit', (code, signal) => resolve(`etcd exited (code ${code}, signal ${signal})`));
  });
  // If the test process dies without stop(), take etcd and its files with it.
  const killOnExit = (): void => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  process.on('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await killAndWait(child, exited);
      process.off('exit', killOnExit);
      await rm(root, { recursive: true, force: true });
    })());

  try {
    const abort = new AbortController();
    const serving = waitUntilServing(clientPort, endpoint, deadline, abort.signal).then(
      () => undefined,
      (e: unknown) => {
        throw new Error(`no answer within ${timeoutMs} ms: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      },
    );
    serving.catch(() => {}); // when etcd exits first, the race below has moved on
    const failure = await Promise.race([serving, exited]).finally(() => abort.abort());
    if (failure !== undefined) {
      const log = logTail();
      if (/address already in use/.test(log)) throw new PortTakenError(`${failure}\n${log}`);
      throw new Error(failure);
    }
  } catch (e: unknown) {
    const log = logTail();
    await stop();
    if (e instanceof PortTakenError) throw e;
    const message = e instanceof Error ? e.message : String(e);
    throw new Error(`etcd did not start: ${message}\n${log}`, { cause: e });
  }
  // Let a test process end even if it forgets stop(): killOnExit cleans up then.
  child.unref();
  return { endpoint, pid: child.pid!, dataDir, logFile, stop };
}

/**
 * Resolve once etcd accepts TCP connections and answers a linearizable Range
 * (so it has elected itself leader); poll both, each try bounded, until `deadline`.
 */
async function waitUntilServing(port: number, endpoint: string, deadline: number, signal: AbortSignal): Promise<void> {
  const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  const check = (what: string): void => {
    if (signal.aborted) throw new Error('aborted');
    if (Date.now() > deadline) throw new Error(what);
  };
  // A TCP probe first: a gRPC channel that meets a refused connection backs off
  // for up to seconds, a probe every 20 ms does not.
  while (!(await accepts(port))) {
    check(`nothing listens on port ${port}`);
    await pause();
  }
  const client = new EtcdClient({ endpoints: [endpoint] });
  try {
    let lastError: unknown;
    for (;;) {
      check(`no answer to a Range: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
      try {
        const timeoutMs = Math.max(1, Math.min(RANGE_TRY_MS, deadline - Date.now()));
        await client.range({ key: Buffer.from([0]), count_only: true }, { timeoutMs });
        return;
      } catch (e: unknown) {
        lastError = e;
      }
      await pause();
    }
  } finally {
    client.close();
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function killAndWait(child: ChildProcess, exited: Promise<string>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(child.pid!, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), STOP_GRACE_MS);
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    signal('SIGKILL');
    await exited;
  }
}

/** `count` distinct ports that were free a moment ago (the OS picks them). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, HOST, () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
