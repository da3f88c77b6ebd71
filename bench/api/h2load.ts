/**
 * The create and get loads of bench:api, from h2load (nghttp2's HTTP/2
 * benchmark tool, Debian's nghttp2-client, written in C): 8 TLS connections
 * with 8 streams each, 64 requests in flight. A load generator written in
 * Node costs about 170 µs of CPU per request on its own, so on a 2-core
 * machine it would take a third of the CPU the server could use; h2load costs
 * about 15. It has no client-certificate option: it presents a bearer token
 * (a --token-auth-file user in system:masters) instead.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from '../common/stats.js';
import { endedChildrenCpuMicros } from './process-cpu.js';

export interface H2LoadOptions {
  /** https://HOST:PORT and the path of every request, or the paths (used in turn) with `paths`. */
  readonly url: string;
  readonly paths: readonly string[];
  readonly token: string;
  readonly seconds: number;
  /** A POST body (the same bytes for every request), or undefined for GETs. */
  readonly body?: string;
  /** Where the request log and the input files go. */
  readonly workDir: string;
  /** The HTTP status every answer must have. */
  readonly expectStatus: number;
}

export interface H2LoadResult {
  readonly count: number;
  readonly perSecond: number;
  /** Latencies in milliseconds. */
  readonly p50: number;
  readonly p99: number;
  /** h2load's own CPU time, µs. */
  readonly loadCpuMicros: number;
}

export const H2LOAD_SHAPE = { connections: 8, streamsPerConnection: 8 } as const;

/** Run h2load for `seconds`; reject if any answer has another status than `expectStatus`. */
export async function runH2Load(options: H2LoadOptions): Promise<H2LoadResult> {
  const log = join(options.workDir, 'h2load.log');
  const uris = join(options.workDir, 'uris.txt');
  writeFileSync(uris, options.paths.map((p) => `${options.url}${p}`).join('\n') + '\n');
  const args = [
    '-c', String(H2LOAD_SHAPE.connections),
    '-m', String(H2LOAD_SHAPE.streamsPerConnection),
    '-D', String(options.seconds),
    '-H', `authorization: Bearer ${options.token}`,
    '-H', 'accept: application/json',
    '--log-file', log,
    '-i', uris,
  ];
  if (options.body !== undefined) {
    const bodyFile = join(options.workDir, 'body.json');
    writeFileSync(bodyFile, options.body);
    args.push('-H', 'content-type: application/json', '-d', bodyFile);
  }
  rmSync(log, { force: true });
  const cpuBefore = endedChildrenCpuMicros();
  await new Promise<void>((resolve, reject) => {
    execFile('h2load', args, { maxBuffer: 1 << 24, timeout: (options.seconds + 60) * 1000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`h2load failed: ${stderr || stdout || error.message}`));
      else resolve();
    });
  });
  const loadCpuMicros = endedChildrenCpuMicros() - cpuBefore;
  // Each line: start time (µs since the epoch), HTTP status, µs until the end of the response.
  const latencies: number[] = [];
  const wrong = new Map<string, number>();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (line === '') continue;
    const [, status, micros] = line.split('\t');
    if (Number(status) !== options.expectStatus) wrong.set(status!, (wrong.get(status!) ?? 0) + 1);
    else latencies.push(Number(micros) / 1000);
  }
  if (wrong.size > 0) throw new Error(`h2load: answers with status ${[...wrong].map(([s, n]) => `${s} ×${n}`).join(', ')} (expected ${options.expectStatus})`);
  if (latencies.length === 0) throw new Error('h2load: no request was answered');
  return { count: latencies.length, perSecond: latencies.length / options.seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), loadCpuMicros };
}
