/**
 * The benchmark's load generator, in a process of its own: keeps
 * `concurrency` connections in flight against host:port for durationMs, each
 * a whole exchange (connect, send, read the reply to the close), and prints
 * one JSON line: connections completed, errors, the elapsed time, every
 * connection's latency (ms, to the µs: the bench merges several generators'
 * before taking percentiles) and the CPU time this process spent.
 *
 *   node load-generator.js HOST PORT CONCURRENCY DURATION_MS
 */
import { connect } from 'node:net';

const [host = '127.0.0.1', portText = '0', concurrencyText = '32', durationText = '3000'] = process.argv.slice(2);
const port = Number(portText);
const concurrency = Number(concurrencyText);
const durationMs = Number(durationText);

function exchange(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host, port, noDelay: true });
    let got = 0;
    socket.on('connect', () => socket.write('x'));
    socket.on('data', (chunk: Buffer) => (got += chunk.length));
    socket.on('error', reject);
    socket.on('close', () => (got > 0 ? resolve(performance.now() - started) : reject(new Error('closed without a reply'))));
  });
}

const latencies: number[] = [];
let errors = 0;
const start = performance.now();
const cpuAtStart = process.cpuUsage();
const deadline = start + durationMs;
async function worker(): Promise<void> {
  while (performance.now() < deadline) {
    try {
      latencies.push(await exchange());
    } catch {
      errors++;
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, () => worker()));
const elapsedMs = performance.now() - start;
const cpu = process.cpuUsage(cpuAtStart);
process.stdout.write(
  `${JSON.stringify({ connections: latencies.length, errors, elapsedMs, cpuUs: cpu.user + cpu.system, latencies: latencies.map((ms) => Math.round(ms * 1000) / 1000) })}\n`,
);
