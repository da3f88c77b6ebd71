import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, afterEach, describe, it } from 'node:test';
import { EndpointPicker } from './endpoint-picker.js';
import { TcpForwarder, type ShutdownRequest, type TcpHandle, type WriteRequest } from './tcp-forwarder.js';
import { endpoint, freePortOn, readFrom } from './testing/backends.js';

const ip = '127.0.0.1';

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, ip, resolve));
  return (server.address() as AddressInfo).port;
}

/** A deterministic pattern of `size` bytes, different for each seed. */
function pattern(size: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

/** Collect a socket's bytes until it ends. */
function collect(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** Resolves when the socket closes, whether or not an error came first. */
const closeOf = (socket: Socket): Promise<void> => new Promise((resolve) => socket.once('close', () => resolve()));

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const streamWrap = (process as unknown as { binding(name: string): unknown }).binding('stream_wrap') as {
  streamBaseState: Int32Array;
  kLastWriteWasAsync: number;
};

/**
 * An accepted connection's handle of the test's own, given to the forwarder
 * in place of one from the kernel, to fail what a kernel seldom fails: a
 * write or shutdown refused at once (`writeResult`, `shutdownResult`: a
 * negative errno), or taken and failed later (`asyncWrites`: the test
 * completes `pendingWrite` / `pendingShutdown` itself).
 */
class FakeClientHandle {
  onread: (this: FakeClientHandle) => void = () => undefined;
  onconnection = (): void => undefined;
  side?: unknown;
  writeResult = 0;
  shutdownResult = 0;
  asyncWrites = false;
  written: Buffer[] = [];
  pendingWrite: WriteRequest | undefined;
  pendingShutdown: ShutdownRequest | undefined;
  reading = false;
  closed = false;
  useUserBuffer(): void {}
  setNoDelay(): number {
    return 0;
  }
  getpeername(out: { address?: string }): number {
    out.address = '127.0.0.1';
    return 0;
  }
  readStart(): number {
    this.reading = true;
    return 0;
  }
  readStop(): number {
    this.reading = false;
    return 0;
  }
  writeBuffer(req: WriteRequest, data: Uint8Array): number {
    if (this.writeResult !== 0) return this.writeResult;
    this.written.push(Buffer.from(data));
    streamWrap.streamBaseState[streamWrap.kLastWriteWasAsync] = this.asyncWrites ? 1 : 0;
    if (this.asyncWrites) this.pendingWrite = req;
    return 0;
  }
  shutdown(req: ShutdownRequest): number {
    if (this.shutdownResult !== 0) return this.shutdownResult;
    this.pendingShutdown = req;
    return 0;
  }
  close(): void {
    this.closed = true;
  }
  asHandle(): TcpHandle {
    return this as unknown as TcpHandle;
  }
}

const ECONNRESET = -104;
const EPIPE = -32;
const ENOTCONN = -107;
const EMFILE = -24;

describe('TcpForwarder', () => {
  const servers: Server[] = [];
  const children: ChildProcess[] = [];
  let forwarder: TcpForwarder | undefined;

  afterEach(() => {
    forwarder?.closeAll();
    forwarder = undefined;
    for (const s of servers.splice(0)) s.close();
  });
  after(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  const forwardTo = async (ports: readonly number[], connectTimeoutMs?: number): Promise<number> => {
    const picker = new EndpointPicker();
    picker.update(
      ports.map((p) => endpoint(p)),
      undefined,
    );
    const port = await freePortOn(ip);
    forwarder = await TcpForwarder.listen({ ip, port, picker, ...(connectTimeoutMs !== undefined ? { connectTimeoutMs } : {}) });
    return port;
  };

  // 16 MiB fills the kernel's loopback buffers on both hops, so the forwarder
  // has to stop reading one side until the other drains: the slow side reads
  // nothing (the client) or no more than its own buffer (the endpoint) until
  // the data behind it has started to back up through the forwarder.
  it('keeps each connection’s bytes apart while large replies are read slowly (back-pressure towards the client)', async () => {
    const size = 16 * 1024 * 1024;
    const sending = new Set<number>();
    const server = createServer((socket) =>
      socket.once('data', (seed: Buffer) => {
        socket.end(pattern(size, seed[0]!));
        sending.add(seed[0]!);
      }),
    );
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const fetch = async (seed: number): Promise<void> => {
      // Paused before it connects, the client reads nothing from the kernel until it resumes.
      const socket = connect({ host: ip, port });
      socket.pause();
      socket.write(Buffer.from([seed]));
      await until(() => sending.has(seed), `the endpoint to send to client ${seed}`);
      const got = collect(socket);
      socket.resume();
      assert.ok((await got).equals(pattern(size, seed)), `connection ${seed} got its own bytes`);
    };
    await Promise.all([1, 2].map(fetch));
  });

  it('passes a large upload to an endpoint that reads slowly (back-pressure towards the endpoint)', async () => {
    const size = 16 * 1024 * 1024;
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      socket.pause();
      until(() => socket.readableLength >= socket.readableHighWaterMark, 'the endpoint to have buffered a full read').then(
        () => {
          void collect(socket).then((b) => socket.end(`${b.length}:${b.equals(pattern(size, 9))}`));
          socket.resume();
        },
        (e: unknown) => socket.end(String(e)),
      );
    });
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const socket = connect({ host: ip, port, allowHalfOpen: true });
    const reply = collect(socket);
    socket.end(pattern(size, 9));
    assert.equal((await reply).toString(), `${size}:true`);
  });

  it('passes the endpoint’s half-close first, then the client’s later bytes and its half-close', async () => {
    const size = 2 * 1024 * 1024;
    let heardBytes: Promise<Buffer> | undefined;
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      socket.end('bye, but I still listen');
      heardBytes = collect(socket);
    });
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const socket = connect({ host: ip, port, allowHalfOpen: true });
    const closed = closeOf(socket);
    assert.equal((await collect(socket)).toString(), 'bye, but I still listen');
    socket.end(pattern(size, 5));
    await until(() => heardBytes !== undefined, 'the endpoint to be reached');
    assert.ok((await heardBytes!).equals(pattern(size, 5)));
    await closed;
    await until(() => forwarder!.connectionCount === 0, 'the connection to be forgotten');
  });

  it('closes both sides once a request read to its end gets its short reply', async () => {
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      void collect(socket).then((b) => socket.end(`got ${b.toString()}`));
    });
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const socket = connect({ host: ip, port, allowHalfOpen: true });
    const reply = collect(socket);
    socket.end('ping');
    assert.equal((await reply).toString(), 'got ping');
    await until(() => forwarder!.connectionCount === 0, 'the connection to be forgotten');
  });

  it('cuts the client when the endpoint resets the joined connection', async () => {
    const server = createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const socket = connect({ host: ip, port });
    socket.on('error', () => undefined);
    socket.write('x');
    await closeOf(socket);
    await until(() => forwarder!.connectionCount === 0, 'the connection to be forgotten');
  });

  it('cuts the endpoint connection when the client resets', async () => {
    let endpointSide: Socket | undefined;
    const server = createServer((socket) => {
      endpointSide = socket;
      socket.on('error', () => undefined);
      socket.resume(); // read to the end, so that 'close' follows the FIN
    });
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const socket = connect({ host: ip, port });
    socket.write('x');
    await until(() => endpointSide !== undefined, 'the endpoint to be reached');
    const closed = closeOf(endpointSide!);
    socket.resetAndDestroy();
    await closed;
    await until(() => forwarder!.connectionCount === 0, 'the connection to be forgotten');
  });

  describe('with an endpoint that does not answer (its accept queue full, its process stopped)', () => {
    let silentPort = 0;
    const fillers: Socket[] = [];

    const startSilentEndpoint = async (): Promise<void> => {
      const child = spawn(process.execPath, ['-e', `const s = require('net').createServer(); s.listen({ host: '${ip}', port: 0, backlog: 1 }, () => console.log(s.address().port));`], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      const [line] = (await once(child.stdout!, 'data')) as [Buffer];
      silentPort = Number(line.toString().trim());
      child.kill('SIGSTOP');
      // Fill the accept queue: later SYNs are dropped, so a connect hangs.
      for (let i = 0; i < 4; i++) {
        const s = connect({ host: ip, port: silentPort });
        s.on('error', () => undefined);
        fillers.push(s);
      }
    };
    after(() => fillers.forEach((s) => s.destroy()));

    it('tries the next endpoint after connectTimeoutMs', async () => {
      await startSilentEndpoint();
      const server = createServer((socket) => socket.end('a'));
      servers.push(server);
      const port = await forwardTo([silentPort, await listening(server)], 100);
      assert.equal(await readFrom(ip, port), 'a');
    });

    it('closes the client once every endpoint has timed out', async () => {
      const port = await forwardTo([silentPort], 100);
      const socket = connect({ host: ip, port });
      socket.on('error', () => undefined);
      await closeOf(socket);
      await until(() => forwarder!.connectionCount === 0, 'the connection to be forgotten');
    });
  });

  it('closeAll cuts joined connections', async () => {
    const server = createServer((socket) => socket.on('error', () => undefined));
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const socket = connect({ host: ip, port });
    socket.on('error', () => undefined);
    socket.write('x');
    await until(() => forwarder!.connectionCount === 1, 'the connection to be accepted');
    const closed = closeOf(socket);
    forwarder!.closeAll();
    await closed;
    await assert.rejects(readFrom(ip, port), { code: 'ECONNREFUSED' });
  });

  it('rejects listening on an address already in use with net’s error (code, syscall, address and port)', async () => {
    const port = await forwardTo([1]);
    await assert.rejects(TcpForwarder.listen({ ip, port, picker: new EndpointPicker() }), {
      code: 'EADDRINUSE',
      syscall: 'listen',
      address: ip,
      port,
      message: `listen EADDRINUSE: address already in use ${ip}:${port}`,
    });
  });

  it('tries the next endpoint when connecting to one fails at once (an address libuv cannot parse)', async () => {
    const server = createServer((socket) => socket.end('b'));
    servers.push(server);
    const picker = new EndpointPicker();
    picker.update([endpoint(80, { ip: 'not-an-address' }), endpoint(await listening(server))], undefined);
    const port = await freePortOn(ip);
    forwarder = await TcpForwarder.listen({ ip, port, picker });
    assert.equal(await readFrom(ip, port), 'b');
  });

  it('tries the next endpoint when an endpoint’s port is out of range, and refuses to listen on one', async () => {
    const server = createServer((socket) => socket.end('d'));
    servers.push(server);
    const picker = new EndpointPicker();
    picker.update([endpoint(70_000), endpoint(await listening(server))], undefined);
    const port = await freePortOn(ip);
    forwarder = await TcpForwarder.listen({ ip, port, picker });
    assert.equal(await readFrom(ip, port), 'd');
    await assert.rejects(TcpForwarder.listen({ ip, port: 70_000, picker }), { code: 'ERR_SOCKET_BAD_PORT' });
  });

  it('keeps listening after a failed accept (EMFILE)', async () => {
    const server = createServer((socket) => socket.end('c'));
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    forwarder!.accept(EMFILE);
    assert.equal(forwarder!.connectionCount, 0);
    assert.equal(await readFrom(ip, port), 'c');
  });

  it('closeAll cuts a connection still waiting for its endpoint, and the cancelled attempt is not retried', async () => {
    const child = spawn(process.execPath, ['-e', `const s = require('net').createServer(); s.listen({ host: '${ip}', port: 0, backlog: 1 }, () => console.log(s.address().port));`], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const silentPort = Number(line.toString().trim());
    child.kill('SIGSTOP');
    const fillers = Array.from({ length: 4 }, () => connect({ host: ip, port: silentPort }).on('error', () => undefined));
    try {
      let reached = 0;
      const server = createServer((socket) => {
        reached++;
        socket.end();
      });
      servers.push(server);
      const port = await forwardTo([silentPort, await listening(server)], 200);
      const socket = connect({ host: ip, port });
      socket.on('error', () => undefined);
      await until(() => forwarder!.connectionCount === 1, 'the connection to be accepted');
      const closed = closeOf(socket);
      forwarder!.closeAll();
      assert.equal(forwarder!.connectionCount, 0);
      await closed;
      // A closed attempt reports nothing and its timer is cleared; a turn of the loop for anything that would follow.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(forwarder!.connectionCount, 0);
      assert.equal(reached, 0, 'the next endpoint is not tried');
    } finally {
      fillers.forEach((s) => s.destroy());
    }
  });

  it('cuts the client when the endpoint resets while writes to it wait for its buffer to drain', async () => {
    const size = 16 * 1024 * 1024;
    const server = createServer((socket) => {
      socket.pause();
      socket.on('error', () => undefined);
      until(() => socket.readableLength >= socket.readableHighWaterMark, 'the endpoint to have buffered a full read').then(
        () => socket.resetAndDestroy(),
        () => socket.destroy(),
      );
    });
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const socket = connect({ host: ip, port });
    socket.on('error', () => undefined);
    const closed = closeOf(socket);
    socket.write(pattern(size, 3));
    await closed;
    await until(() => forwarder!.connectionCount === 0, 'the connection to be forgotten');
  });

  it('cuts the endpoint connection when the client resets while writes to it wait for its buffer to drain', async () => {
    const size = 16 * 1024 * 1024;
    let endpointSide: Socket | undefined;
    const sent = new Set<number>();
    const server = createServer((socket) => {
      endpointSide = socket;
      socket.on('error', () => undefined);
      socket.write(pattern(size, 4), () => sent.add(4));
    });
    servers.push(server);
    const port = await forwardTo([await listening(server)]);
    const socket = connect({ host: ip, port });
    socket.pause();
    socket.write('x');
    await until(() => endpointSide !== undefined && endpointSide.writableLength > 0, 'the endpoint to be held back');
    const closed = closeOf(endpointSide!);
    socket.resetAndDestroy();
    await closed;
    await until(() => forwarder!.connectionCount === 0, 'the connection to be forgotten');
  });

  describe('with a client handle that fails', { timeout: 20_000 }, () => {
    /** An endpoint that greets each connection (and half-closes after it when `end`), and tells when its side closes. */
    const greeter = async (end: boolean): Promise<{ port: number; closed: Promise<void> }> => {
      let closedResolve: () => void = () => undefined;
      const closed = new Promise<void>((resolve) => (closedResolve = resolve));
      const server = createServer((socket) => {
        socket.on('error', () => undefined);
        socket.on('close', () => closedResolve());
        socket.resume();
        if (end) socket.end('hello');
        else socket.write('hello');
      });
      servers.push(server);
      return { port: await listening(server), closed };
    };
    const accept = async (client: FakeClientHandle, endpointPort: number): Promise<void> => {
      await forwardTo([endpointPort]);
      forwarder!.accept(0, client.asHandle());
      await until(() => client.reading, 'the connection to be joined');
    };

    it('cuts the endpoint connection when a write to the client fails at once (EPIPE)', async () => {
      const { port, closed } = await greeter(false);
      const client = Object.assign(new FakeClientHandle(), { writeResult: EPIPE });
      await accept(client, port);
      await closed;
      assert.ok(client.closed);
      assert.equal(forwarder!.connectionCount, 0);
    });

    it('cuts both when a write to the client that had to wait fails', async () => {
      const { port, closed } = await greeter(false);
      const client = Object.assign(new FakeClientHandle(), { asyncWrites: true });
      await accept(client, port);
      await until(() => client.pendingWrite !== undefined, 'a write to the client to wait');
      assert.equal(client.written.join(''), 'hello');
      const req = client.pendingWrite!;
      req.oncomplete.call(req, ECONNRESET);
      await closed;
      assert.ok(client.closed);
      assert.equal(forwarder!.connectionCount, 0);
    });

    it('cuts both when passing the endpoint’s half-close to the client fails at once (ENOTCONN)', async () => {
      const { port, closed } = await greeter(true);
      const client = Object.assign(new FakeClientHandle(), { shutdownResult: ENOTCONN });
      await accept(client, port);
      await closed;
      assert.ok(client.closed);
      assert.equal(client.written.join(''), 'hello');
      assert.equal(forwarder!.connectionCount, 0);
    });

    it('cuts both when passing the endpoint’s half-close to the client fails later', async () => {
      const { port, closed } = await greeter(true);
      const client = new FakeClientHandle();
      await accept(client, port);
      await until(() => client.pendingShutdown !== undefined, 'the half-close to be passed on');
      assert.equal(forwarder!.connectionCount, 1);
      const req = client.pendingShutdown!;
      req.oncomplete.call(req, ECONNRESET);
      await closed;
      assert.ok(client.closed);
      assert.equal(forwarder!.connectionCount, 0);
    });
  });
});
