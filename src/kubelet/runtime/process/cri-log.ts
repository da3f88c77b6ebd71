/**
 * The CRI container log format, as containerd writes it: one record per line
 * of output, `<RFC3339Nano> <stdout|stderr> <F|P> <text>\n`. A line longer
 * than `maxLineBytes` (containerd's max_container_log_line_size, 16 KiB) is
 * split into `P` (partial) records followed by a final `F` record; text left
 * without a newline when the stream ends is written as a full line.
 */
import { formatRfc3339Nano, nowNanos } from '../clock.js';

export const MAX_LOG_LINE_BYTES = 16 * 1024;

export type LogStreamName = 'stdout' | 'stderr';

export interface CriLogLineSink {
  write(record: string | Buffer): void;
}

/** Splits one output stream into CRI log records. */
export class CriLogStreamSplitter {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly stream: LogStreamName,
    private readonly sink: CriLogLineSink,
    private readonly maxLineBytes: number = MAX_LOG_LINE_BYTES,
    private readonly clock: () => bigint = nowNanos,
  ) {}

  push(chunk: Buffer): void {
    let data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const nl = data.indexOf(0x0a);
      if (nl >= 0 && nl <= this.maxLineBytes) {
        this.emit('F', data.subarray(0, nl));
        data = data.subarray(nl + 1);
      } else if (data.length > this.maxLineBytes) {
        this.emit('P', data.subarray(0, this.maxLineBytes));
        data = data.subarray(this.maxLineBytes);
      } else {
        break;
      }
    }
    this.pending = Buffer.from(data);
  }

  /** The stream ended: what is left is one last full line. */
  end(): void {
    if (this.pending.length > 0) this.emit('F', this.pending);
    this.pending = Buffer.alloc(0);
  }

  private emit(tag: 'F' | 'P', text: Buffer): void {
    const head = `${formatRfc3339Nano(this.clock())} ${this.stream} ${tag} `;
    this.sink.write(Buffer.concat([Buffer.from(head), text, Buffer.from('\n')]));
  }
}

export interface CriLogRecord {
  readonly time: string;
  readonly stream: LogStreamName;
  readonly tag: 'F' | 'P';
  readonly text: string;
}

/** Parses a CRI log file's text into records (for tests and the kubelet's log reader). */
export function parseCriLog(text: string): CriLogRecord[] {
  const records: CriLogRecord[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const m = /^(\S+) (stdout|stderr) (F|P) (.*)$/s.exec(line);
    if (!m) throw new Error(`not a CRI log line: ${JSON.stringify(line.slice(0, 80))}`);
    records.push({ time: m[1]!, stream: m[2] as LogStreamName, tag: m[3] as 'F' | 'P', text: m[4]! });
  }
  return records;
}
