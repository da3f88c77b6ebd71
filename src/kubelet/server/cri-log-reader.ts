/**
 * Reading a container's CRI log file for GET /containerLogs, as upstream's
 * kuberuntime ReadLogs does: each record `<RFC3339Nano> <stdout|stderr>
 * <F|P> <text>` gives back its text (a newline after F records, none after
 * P), optionally prefixed by its timestamp (RFC3339Nano, trailing zeros
 * dropped) at the start of each line; records older than `since` are
 * skipped, only the last `tailLines` records are kept, output stops after
 * `limitBytes`, and `follow` keeps reading what the container appends until
 * it has exited and the file is read to its end.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';

export interface CriLogRecord {
  readonly timestamp: string;
  /** Nanoseconds since the epoch. */
  readonly nanos: bigint;
  readonly stream: 'stdout' | 'stderr';
  readonly partial: boolean;
  readonly text: Buffer;
}

const TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/** Nanoseconds since the epoch of an RFC3339(Nano) time, or undefined. */
export function parseRfc3339Nanos(text: string): bigint | undefined {
  const match = TIMESTAMP.exec(text);
  if (match === null) return undefined;
  const ms = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(ms)) return undefined;
  return BigInt(ms) * 1_000_000n + BigInt((match[2] ?? '').padEnd(9, '0') || '0');
}

/** Go's RFC3339Nano: the fraction without trailing zeros, no dot when it is zero. */
export function canonicalTimestamp(text: string): string {
  const match = TIMESTAMP.exec(text);
  if (match === null) return text;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return `${match[1]}${fraction === '' ? '' : `.${fraction}`}${match[3]}`;
}

/** One line of the file (without its newline); undefined when it is not a CRI record. */
export function parseCriLogLine(line: Buffer): CriLogRecord | undefined {
  const first = line.indexOf(0x20);
  if (first < 0) return undefined;
  const second = line.indexOf(0x20, first + 1);
  if (second < 0) return undefined;
  const timestamp = line.subarray(0, first).toString('latin1');
  const nanos = parseRfc3339Nanos(timestamp);
  const stream = line.subarray(first + 1, second).toString('latin1');
  if (nanos === undefined || (stream !== 'stdout' && stream !== 'stderr')) return undefined;
  const rest = line.subarray(second + 1);
  // `<tag> <text>`: F (full) or P (partial); a tag may carry more flags after ':' (F:x).
  const space = rest.indexOf(0x20);
  const tag = (space < 0 ? rest : rest.subarray(0, space)).toString('latin1').split(':')[0];
  if (tag !== 'F' && tag !== 'P') return undefined;
  return { timestamp, nanos, stream, partial: tag === 'P', text: space < 0 ? Buffer.alloc(0) : rest.subarray(space + 1) };
}

export interface LogReadOptions {
  readonly timestamps: boolean;
  /** Skip records older than this (nanoseconds since the epoch). */
  readonly since?: bigint;
  /** Only the last N records of the file (before follow). */
  readonly tailLines?: number;
  readonly limitBytes?: number;
  readonly follow: boolean;
  /** Whether the container has exited (follow stops once it has and the file is read). */
  readonly exited: () => Promise<boolean>;
  /** How often follow looks for more (default 100 ms). */
  readonly pollIntervalMs?: number;
  /** Aborts a follow (the client went away). */
  readonly signal?: AbortSignal;
}

/** Formats records into output, counting bytes against the limit. */
class LogFormatter {
  private atLineStart = true;
  written = 0;

  constructor(
    private readonly out: Writable,
    private readonly options: LogReadOptions,
  ) {}

  get full(): boolean {
    return this.options.limitBytes !== undefined && this.written >= this.options.limitBytes;
  }

  async write(record: CriLogRecord): Promise<void> {
    if (this.full) return;
    if (this.options.since !== undefined && record.nanos < this.options.since) return;
    const parts: Buffer[] = [];
    if (this.options.timestamps && this.atLineStart) parts.push(Buffer.from(`${canonicalTimestamp(record.timestamp)} `));
    parts.push(record.text);
    if (!record.partial) parts.push(Buffer.from('\n'));
    this.atLineStart = !record.partial;
    let bytes = Buffer.concat(parts);
    if (this.options.limitBytes !== undefined && this.written + bytes.length > this.options.limitBytes) {
      bytes = bytes.subarray(0, this.options.limitBytes - this.written);
    }
    this.written += bytes.length;
    if (bytes.length === 0) return;
    if (!this.out.write(bytes)) await new Promise<void>((resolve) => this.out.once('drain', resolve));
  }
}

function splitLines(buffer: Buffer): { lines: Buffer[]; rest: Buffer } {
  const lines: Buffer[] = [];
  let start = 0;
  for (;;) {
    const nl = buffer.indexOf(0x0a, start);
    if (nl < 0) break;
    lines.push(buffer.subarray(start, nl));
    start = nl + 1;
  }
  return { lines, rest: buffer.subarray(start) };
}

async function readFrom(handle: FileHandle, position: number): Promise<Buffer> {
  const { size } = await handle.stat();
  if (size <= position) return Buffer.alloc(0);
  const buffer = Buffer.alloc(size - position);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
  return buffer.subarray(0, bytesRead);
}

/** Writes the log of the file at `path` to `out` (which it does not end). */
export async function readCriLog(path: string, out: Writable, options: LogReadOptions): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (e: unknown) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !options.follow) return;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    // Not written yet: follow waits for it below.
    const later = await waitForFile(path, options);
    if (later === undefined) return;
    handle = later;
  }
  try {
    const formatter = new LogFormatter(out, options);
    let position = 0;
    const initial = await readFrom(handle, 0);
    position += initial.length;
    const { lines, rest } = splitLines(initial);
    let pending = rest;
    let records = lines.map(parseCriLogLine).filter((r): r is CriLogRecord => r !== undefined);
    if (options.tailLines !== undefined) records = options.tailLines === 0 ? [] : records.slice(-options.tailLines);
    for (const record of records) await formatter.write(record);
    if (!options.follow) return;
    const interval = options.pollIntervalMs ?? 100;
    for (;;) {
      if (formatter.full || options.signal?.aborted === true) return;
      // Read whether it exited before reading: what it wrote before exiting is then in the file.
      const exited = await options.exited();
      const more = await readFrom(handle, position);
      position += more.length;
      if (more.length > 0) {
        const split = splitLines(pending.length === 0 ? more : Buffer.concat([pending, more]));
        pending = split.rest;
        for (const line of split.lines) {
          const record = parseCriLogLine(line);
          if (record !== undefined) await formatter.write(record);
        }
        continue;
      }
      if (exited) return;
      await sleep(interval, options.signal);
    }
  } finally {
    await handle.close();
  }
}

async function waitForFile(path: string, options: LogReadOptions): Promise<FileHandle | undefined> {
  for (;;) {
    if (options.signal?.aborted === true || (await options.exited())) return undefined;
    await sleep(options.pollIntervalMs ?? 100, options.signal);
    try {
      return await open(path, 'r');
    } catch (e: unknown) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
