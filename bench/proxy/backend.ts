/**
 * The benchmark's backend, in a process of its own: a TCP server on 127.0.0.1
 * that answers each connection's first bytes with a short reply and closes
 * (a connection-per-request workload, the proxy's costly case). Prints its
 * port on stdout, then answers each line on stdin with the CPU time (µs) it
 * has spent so far, so that the bench can charge it per connection; exits
 * when stdin closes (the bench is gone).
 */
import { createServer, type AddressInfo } from 'node:net';

const server = createServer({ noDelay: true }, (socket) => {
  socket.once('data', () => socket.end('ok\n'));
  socket.on('error', () => socket.destroy());
});
server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 }, () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.stdin.on('data', () => {
  const cpu = process.cpuUsage();
  process.stdout.write(`${cpu.user + cpu.system}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
