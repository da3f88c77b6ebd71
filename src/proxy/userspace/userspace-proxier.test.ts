import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { servicePortKey } from '../interface.js';
import { endpoint, freePortOn, namedBackend, readFrom, servicePort, stateOf, udpRequest } from './testing/backends.js';
import { newUserspaceProxier, type UserspaceProxier } from './userspace-proxier.js';

/** A loopback address of this file's own (127.97.x.y), so that parallel test files never share one. */
const clusterIP = `127.97.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const nodeIP = `127.98.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

describe('userspace proxier', () => {
  const backends: { server: Server; port: number }[] = [];
  let proxier: UserspaceProxier;
  let port: number;

  before(async () => {
    for (const name of ['a', 'b', 'c']) backends.push(await namedBackend(name));
  });
  after(() => backends.forEach((b) => b.server.close()));
  afterEach(() => proxier.close());

  const fresh = async (): Promise<void> => {
    proxier = newUserspaceProxier({ nodePortAddresses: [nodeIP], connectTimeoutMs: 500, udpIdleTimeoutMs: 1000 });
    port = await freePortOn(clusterIP);
  };
  const a = (): number => backends[0]!.port;
  const b = (): number => backends[1]!.port;
  const c = (): number => backends[2]!.port;

  it('forwards to every ready endpoint round-robin', async () => {
    await fresh();
    const result = await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(a()), endpoint(b()), endpoint(c()), endpoint(c(), { ip: '127.0.0.2', ready: false, serving: false })]]));
    assert.deepEqual(result, { servicePorts: 1, endpoints: 3, problems: [] });
    assert.deepEqual(proxier.listening, [`TCP/${clusterIP}:${port}`]);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await readFrom(clusterIP, port));
    assert.deepEqual(answers, ['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('passes bytes both ways and a half-close through (a request read to its end, then the reply)', async () => {
    await fresh();
    const upper = createServer({ allowHalfOpen: true }, (socket) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => socket.end(text.toUpperCase()));
    });
    await new Promise<void>((resolve) => upper.listen(0, '127.0.0.1', resolve));
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint((upper.address() as AddressInfo).port)]]));
    const big = 'x'.repeat(4 * 1024 * 1024);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: clusterIP, port, allowHalfOpen: true });
      let data = '';
      socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
      socket.on('error', reject);
      socket.on('end', () => resolve(data));
      socket.end(big);
    });
    assert.equal(reply.length, big.length);
    assert.equal(reply, big.toUpperCase());
    upper.close();
  });

  it('tries the next endpoint when one refuses the connection', async () => {
    await fresh();
    const closed = await freePortOn('127.0.0.1');
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(closed), endpoint(a()), endpoint(closed, { ip: '127.0.0.3' })]]));
    for (let i = 0; i < 4; i++) assert.equal(await readFrom(clusterIP, port), 'a');
  });

  it('closes the client connection when no endpoint is usable', async () => {
    await fresh();
    const closed = await freePortOn('127.0.0.1');
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(closed)]]));
    assert.equal(await readFrom(clusterIP, port), '');
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), []]));
    assert.equal(await readFrom(clusterIP, port), '');
  });

  it('stops sending new connections to an endpoint once a sync without it resolves, and keeps the listener', async () => {
    await fresh();
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(a()), endpoint(b())]]));
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(a(), { ready: false, serving: false }), endpoint(b())]]));
    for (let i = 0; i < 3; i++) assert.equal(await readFrom(clusterIP, port), 'b');
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(a()), endpoint(b())]]));
    const seen = new Set([await readFrom(clusterIP, port), await readFrom(clusterIP, port)]);
    assert.deepEqual([...seen].sort(), ['a', 'b']);
  });

  it('uses serving terminating endpoints when none is ready (categorizeEndpoints)', async () => {
    await fresh();
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(a(), { ready: false, serving: true, terminating: true })]]));
    assert.equal(await readFrom(clusterIP, port), 'a');
  });

  it('keeps a client on its endpoint with sessionAffinity ClientIP', async () => {
    await fresh();
    await proxier.sync(stateOf([servicePort('web', clusterIP, port, { sessionAffinityTimeoutSeconds: 60 }), [endpoint(a()), endpoint(b()), endpoint(c())]]));
    const first = await readFrom(clusterIP, port, '127.0.0.1');
    for (let i = 0; i < 4; i++) assert.equal(await readFrom(clusterIP, port, '127.0.0.1'), first);
    const other = await readFrom(clusterIP, port, '127.0.0.5');
    assert.notEqual(other, first);
  });

  it('serves a node port on the node port addresses, with externalTrafficPolicy Local using only local endpoints', async () => {
    await fresh();
    const nodePort = await freePortOn(nodeIP);
    const svc = servicePort('web', clusterIP, port, { type: 'NodePort', nodePort, externalTrafficPolicyLocal: true });
    await proxier.sync(stateOf([svc, [endpoint(a(), { isLocal: true }), endpoint(b())]]));
    assert.deepEqual(proxier.listening, [`TCP/${clusterIP}:${port}`, `TCP/${nodeIP}:${nodePort}`].sort());
    for (let i = 0; i < 3; i++) assert.equal(await readFrom(nodeIP, nodePort), 'a');
    const viaCluster = new Set([await readFrom(clusterIP, port), await readFrom(clusterIP, port)]);
    assert.deepEqual([...viaCluster].sort(), ['a', 'b']);
  });

  it('with internalTrafficPolicy Local sends cluster IP traffic only to local endpoints, and drops it when there are none', async () => {
    await fresh();
    const svc = servicePort('web', clusterIP, port, { internalTrafficPolicyLocal: true });
    await proxier.sync(stateOf([svc, [endpoint(a()), endpoint(b(), { isLocal: true })]]));
    for (let i = 0; i < 3; i++) assert.equal(await readFrom(clusterIP, port), 'b');
    await proxier.sync(stateOf([svc, [endpoint(a())]]));
    assert.equal(await readFrom(clusterIP, port), '');
  });

  it('closes the listeners of removed Service ports', async () => {
    await fresh();
    await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(a())]]));
    assert.equal(await readFrom(clusterIP, port), 'a');
    await proxier.sync(stateOf());
    assert.deepEqual(proxier.listening, []);
    await assert.rejects(readFrom(clusterIP, port), { code: 'ECONNREFUSED' });
  });

  it('reports an address already taken as a problem, serves the rest, and takes the address once it is free', async () => {
    await fresh();
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, clusterIP, resolve));
    const otherPort = await freePortOn(clusterIP);
    const state = stateOf([servicePort('web', clusterIP, port), [endpoint(a())]], [servicePort('api', clusterIP, otherPort), [endpoint(b())]]);
    const result = await proxier.sync(state);
    assert.deepEqual(result.problems, [
      `Service default/web port "http": cannot listen on ${clusterIP}:${port}/TCP: the address is already in use (another proxy on this machine? a second node on one machine runs with --disable-proxy)`,
    ]);
    assert.equal(await readFrom(clusterIP, otherPort), 'b');
    await new Promise((resolve) => squatter.close(resolve));
    assert.deepEqual((await proxier.sync(state)).problems, []);
    assert.equal(await readFrom(clusterIP, port), 'a');
  });

  it('reports an address not on this machine and an unsupported protocol', async () => {
    await fresh();
    const svc = servicePort('web', clusterIP, port, { externalIPs: ['192.0.2.1'] });
    const sctp = servicePort('sctp', clusterIP, port, { name: { namespace: 'default', name: 'sctp', port: 'http', protocol: 'SCTP' }, key: servicePortKey({ namespace: 'default', name: 'sctp', port: 'http', protocol: 'SCTP' }) });
    const result = await proxier.sync(stateOf([svc, [endpoint(a())]], [sctp, []]));
    assert.deepEqual(result.problems, [
      'Service default/sctp port "http": SCTP is not supported by the userspace proxy',
      `Service default/web port "http": cannot listen on 192.0.2.1:${port}/TCP: the address is not on this machine`,
    ]);
  });

  it('reports two Service ports wanting one address', async () => {
    await fresh();
    const result = await proxier.sync(stateOf([servicePort('web', clusterIP, port), [endpoint(a())]], [servicePort('dup', clusterIP, port), [endpoint(b())]]));
    assert.deepEqual(result.problems, [`Service default/dup port "http": ${clusterIP}:${port}/UDP is also wanted by Service default/web port "http"; only the first is served`.replace('/UDP', '/TCP')]);
  });

  it('forwards UDP datagrams and sends the replies back from the Service address', async () => {
    await fresh();
    const echo = createSocket('udp4');
    echo.on('message', (msg, rinfo) => echo.send(`echo ${msg.toString()}`, rinfo.port, rinfo.address));
    await new Promise<void>((resolve) => echo.bind(0, '127.0.0.1', resolve));
    const echoPort = (echo.address() as AddressInfo).port;
    const udpPort = await freePortOn(clusterIP);
    const name = { namespace: 'default', name: 'dns', port: 'dns', protocol: 'UDP' } as const;
    await proxier.sync(stateOf([servicePort('dns', clusterIP, udpPort, { name, key: servicePortKey(name) }), [endpoint(echoPort)]]));
    assert.deepEqual(proxier.listening, [`UDP/${clusterIP}:${udpPort}`]);
    assert.equal(await udpRequest(clusterIP, udpPort, 'one'), 'echo one');
    assert.equal(await udpRequest(clusterIP, udpPort, 'two'), 'echo two');
    echo.close();
  });

  it('moves a UDP client whose endpoint refuses (ICMP port unreachable) to the next endpoint', async () => {
    await fresh();
    const echo = createSocket('udp4');
    echo.on('message', (msg, rinfo) => echo.send(`echo ${msg.toString()}`, rinfo.port, rinfo.address));
    await new Promise<void>((resolve) => echo.bind(0, '127.0.0.1', resolve));
    const closed = createSocket('udp4');
    await new Promise<void>((resolve) => closed.bind(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    const udpPort = await freePortOn(clusterIP);
    const name = { namespace: 'default', name: 'dns', port: 'dns', protocol: 'UDP' } as const;
    await proxier.sync(stateOf([servicePort('dns', clusterIP, udpPort, { name, key: servicePortKey(name) }), [endpoint(closedPort), endpoint((echo.address() as AddressInfo).port)]]));
    // One client socket, resending until answered: the first datagram goes to the closed port and is lost.
    const client = createSocket('udp4');
    const reply = await new Promise<string>((resolve) => {
      const timer = setInterval(() => client.send('ping', udpPort, clusterIP), 50);
      client.on('message', (msg) => {
        clearInterval(timer);
        resolve(msg.toString());
      });
      client.send('ping', udpPort, clusterIP);
    });
    assert.equal(reply, 'echo ping');
    client.close();
    echo.close();
  });
});
