/**
 * The benchmark's backend, in a process of its own: a TCP server on 127.0.0.1
 * that answers each connection's first bytes with a short reply and closes
 * (a connection-per-request workload, the proxy's costly case). Prints its
 * port on stdout.
 */
import { createServer, type AddressInfo } from 'node:net';

const server = createServer({ noDelay: true }, (socket) => {
  socket.once('data', () => socket.end('ok\n'));
  socket.on('error', () => socket.destroy());
});
server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
