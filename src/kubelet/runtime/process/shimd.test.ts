import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { eventually } from '../testing/conformance.js';
import { isAlive } from './pid-alive.js';
import { ShimdClient } from './shimd-client.js';
import { shimdSocketName } from './shimd-protocol.js';
import { containerFile, readJsonIfExists, shimLogFile, shimStateFile, writeJsonAtomic, type ContainerRecord, type ShimState } from './state-files.js';

const script = fileURLToPath(new URL('./shimd.js', import.meta.url));

/** Runs `shimd.js` directly; resolves with its exit code. */
function runDaemon(stateDir: string, connectWaitMs: number): { pid: number; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [script, stateDir, String(connectWaitMs)], { stdio: 'ignore' });
  return { pid: child.pid ?? 0, exit: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

function containerDirWith(root: string, name: string, argv: string[]): string {
  const dir = join(root, name);
  const record: ContainerRecord = {
    id: name.padEnd(64, '0'),
    podSandboxId: 's',
    metadata: { name, attempt: 0 },
    image: '',
    imageRef: '',
    labels: {},
    annotations: {},
    mounts: [],
    logPath: join(root, `${name}.log`),
    argv,
    env: [],
    workingDir: '/',
    stdin: false,
    stdinOnce: false,
    tty: false,
    createdAt: '0',
  };
  writeJsonAtomic(containerFile(dir), record);
  return dir;
}

describe('the shim daemon (shimd.js) and its client', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-shimd-'));
  const clients: ShimdClient[] = [];
  const client = (stateDir: string): ShimdClient => {
    mkdirSync(stateDir, { recursive: true });
    const c = new ShimdClient({ script, stateDir, logFile: join(stateDir, 'shimd.log'), connectTimeoutMs: 20_000 });
    clients.push(c);
    return c;
  };
  after(() => {
    for (const c of clients) c.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('starts a container and answers once its start is recorded', async () => {
    const stateDir = join(root, 'start');
    const dir = containerDirWith(stateDir, 'hello', ['/bin/sh', '-c', 'echo hello']);
    await client(stateDir).start(dir);
    const state = readJsonIfExists<ShimState>(shimStateFile(dir));
    assert.ok(state !== undefined && state.pid > 0 && state.startError === undefined);
    await eventually('the exit to be recorded', async () => readJsonIfExists<ShimState>(shimStateFile(dir))?.finishedAt);
    assert.match(readFileSync(join(stateDir, 'hello.log'), 'utf8'), / stdout F hello\n$/);
  });

  it('refuses a directory with no container, saying why, in the answer and in its shim.log', async () => {
    const stateDir = join(root, 'refuse');
    const dir = join(stateDir, 'empty');
    mkdirSync(dir, { recursive: true });
    await assert.rejects(client(stateDir).start(dir), /no container\.json/);
    assert.match(readFileSync(shimLogFile(dir), 'utf8'), /no container\.json/);
  });

  it('logs a request that is not JSON and goes on serving', async () => {
    const stateDir = join(root, 'garbage');
    const c = client(stateDir);
    const first = containerDirWith(stateDir, 'first', ['/bin/sh', '-c', 'exit 0']);
    await c.start(first);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(shimdSocketName(stateDir), () => socket.end('this is not json\n'));
      socket.on('error', reject);
      socket.on('close', () => resolve());
    });
    await eventually('the bad request in the log', async () => (/not a request: this is not json/.test(readFileSync(join(stateDir, 'shimd.log'), 'utf8')) ? true : undefined));
    const second = containerDirWith(stateDir, 'second', ['/bin/sh', '-c', 'exit 0']);
    await c.start(second);
    assert.ok(readJsonIfExists<ShimState>(shimStateFile(second)));
  });

  it('a second daemon for the same state directory leaves at once; one nobody connects to leaves after its wait', async () => {
    const stateDir = join(root, 'twice');
    const c = client(stateDir);
    await c.start(containerDirWith(stateDir, 'keep', ['/bin/sh', '-c', 'exit 0']));
    assert.equal(await runDaemon(stateDir, 60_000).exit, 0);
    const lonely = runDaemon(join(root, 'lonely'), 50);
    assert.equal(await lonely.exit, 0);
    assert.equal(isAlive(lonely.pid), false);
  });

  it('fails a start on a closed client', async () => {
    const stateDir = join(root, 'closed');
    const c = client(stateDir);
    c.close();
    await assert.rejects(c.start(join(stateDir, 'x')), /the process runtime is closed/);
  });

  it('fails a start whose daemon ends before answering', async () => {
    const stateDir = join(root, 'ended');
    // Stands in for a daemon that dies on a request: it accepts, reads, and cuts the connection.
    const dying = createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => dying.listen(shimdSocketName(stateDir), resolve));
    try {
      await assert.rejects(client(stateDir).start(join(stateDir, 'x')), /the shim daemon ended/);
    } finally {
      dying.close();
    }
  });
});
