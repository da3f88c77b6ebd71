/**
 * The audit log file: one JSON event per line, appended in batches (events of
 * one turn of the event loop are written together, never blocking a request),
 * rotated by size as upstream's --audit-log-maxsize/-maxbackup/-maxage do:
 * when the file would pass maxSizeMB it is renamed to
 * `<name>-<UTC time as 2006-01-02T15-04-05.000>.<ext>` beside it and a new
 * file is started; beyond maxBackups (0: keep all) or older than maxAgeDays
 * (0: no limit) backups are removed. Path `-` writes to standard output.
 */
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

export interface LogBackendOptions {
  readonly path: string;
  /** Rotate before the file passes this many megabytes (0: never). */
  readonly maxSizeMB?: number;
  /** Keep at most this many rotated files (0: all). */
  readonly maxBackups?: number;
  /** Remove rotated files older than this many days (0: never). */
  readonly maxAgeDays?: number;
  /** Reports a failed write (the event is dropped; requests are never failed by the audit log). */
  readonly onError?: (error: unknown) => void;
  /** The clock, for backup names (tests pass their own). */
  readonly now?: () => Date;
}

export interface LogBackend {
  /** Queue one event; it is written soon after. */
  write(event: object): void;
  /** Resolves when everything queued so far is on disk. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function newLogBackend(options: LogBackendOptions): LogBackend {
  return options.path === '-' ? new StdoutBackend() : new FileBackend(options);
}

class StdoutBackend implements LogBackend {
  write(event: object): void {
    process.stdout.write(`${JSON.stringify(event)}\n`);
  }
  async flush(): Promise<void> {
    if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
  }
  async close(): Promise<void> {
    await this.flush();
  }
}

/** UTC time as lumberjack names backups: 2006-01-02T15-04-05.000. */
export function backupTimestamp(date: Date): string {
  return date.toISOString().replace(/:/g, '-').replace(/Z$/, '');
}

class FileBackend implements LogBackend {
  private pending: string[] = [];
  private writing: Promise<void> | undefined;
  private file: FileHandle | undefined;
  private size = 0;
  private closed = false;
  private readonly maxBytes: number;

  constructor(private readonly options: LogBackendOptions) {
    this.maxBytes = (options.maxSizeMB ?? 0) * 1024 * 1024;
    mkdirSync(dirname(options.path), { recursive: true });
  }

  write(event: object): void {
    if (this.closed) return;
    this.pending.push(`${JSON.stringify(event)}\n`);
    if (this.writing === undefined) this.writing = this.drain();
  }

  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.file?.close();
    this.file = undefined;
  }

  /** Write batches until nothing is pending. */
  private async drain(): Promise<void> {
    // Let the rest of this turn's events join the batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.join('');
        this.pending = [];
        try {
          await this.append(batch);
        } catch (e: unknown) {
          this.options.onError?.(e);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  private async append(batch: string): Promise<void> {
    const bytes = Buffer.byteLength(batch);
    if (this.file === undefined) await this.openFile();
    if (this.maxBytes > 0 && this.size > 0 && this.size + bytes > this.maxBytes) await this.rotate();
    await this.file!.write(batch);
    this.size += bytes;
  }

  private async openFile(): Promise<void> {
    this.file = await open(this.options.path, 'a', 0o600);
    this.size = (await this.file.stat()).size;
  }

  private async rotate(): Promise<void> {
    await this.file?.close();
    this.file = undefined;
    const ext = extname(this.options.path);
    const stem = basename(this.options.path, ext);
    const backup = join(dirname(this.options.path), `${stem}-${backupTimestamp((this.options.now ?? (() => new Date()))())}${ext}`);
    await rename(this.options.path, backup);
    await this.removeOldBackups(stem, ext);
    await this.openFile();
  }

  private async removeOldBackups(stem: string, ext: string): Promise<void> {
    const maxBackups = this.options.maxBackups ?? 0;
    const maxAgeDays = this.options.maxAgeDays ?? 0;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const dir = dirname(this.options.path);
    const pattern = new RegExp(`^${escape(stem)}-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}${escape(ext)}$`);
    // Backup names sort by time.
    const backups = (await readdir(dir)).filter((n) => pattern.test(n)).sort().reverse();
    const cutoff = Date.now() - maxAgeDays * 24 * 3600 * 1000;
    for (const [i, name] of backups.entries()) {
      const path = join(dir, name);
      const tooMany = maxBackups > 0 && i >= maxBackups;
      const tooOld = maxAgeDays > 0 && (await stat(path)).mtimeMs < cutoff;
      if (tooMany || tooOld) await unlink(path).catch(() => {});
    }
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
