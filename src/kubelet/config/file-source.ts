/**
 * The file pod source (upstream's pkg/kubelet/config/file.go): the static
 * pods of --pod-manifest-path, a directory of manifests (one pod per file,
 * YAML or JSON; names starting with `.` and subdirectories are skipped) or a
 * single file. It reads them at start, again on every fs.watch event (after a
 * short settle delay, so that a file being written is read once complete) and
 * every --file-check-frequency. A file that cannot be read or is not a valid
 * pod is logged and left out; the other pods are unaffected. A missing path
 * is an empty set. Two files naming the same pod: the first (by file name)
 * wins, as upstream keeps the first of duplicates.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../machinery/logger.js';
import { jsonEqual } from '../../machinery/meta.js';
import { CONFIG_SEEN_ANNOTATION, type Pod } from '../types.js';
import type { PodSource } from './interface.js';
import { parseManifest, staticPodFromManifest } from './static-pod.js';

export interface FileSourceOptions {
  /** --pod-manifest-path: a directory or one file. */
  readonly path: string;
  readonly nodeName: string;
  /** --file-check-frequency (upstream 20 s). */
  readonly checkFrequencyMs: number;
  readonly logger: Logger;
  /** Delay between a watch event and the read (default 100 ms). */
  readonly settleMs?: number;
  readonly now?: () => Date;
}

/** RFC 3339 with nanoseconds, as upstream's config.seen. */
const seenStamp = (d: Date): string => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');

async function manifestFiles(path: string): Promise<string[] | undefined> {
  let info;
  try {
    info = await stat(path);
  } catch (e: unknown) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  return entries
    .filter((e) => !e.name.startsWith('.') && (e.isFile() || e.isSymbolicLink()))
    .map((e) => join(path, e.name))
    .sort();
}

export function newFileSource(options: FileSourceOptions): PodSource {
  const now = options.now ?? (() => new Date());
  const settleMs = options.settleMs ?? 100;
  /** config.seen by pod uid, so that a re-read of an unchanged file gives the same pod. */
  let seen = new Map<string, string>();
  /** The last error logged per file, so that a bad file is logged once per change. */
  const reported = new Map<string, string>();
  let last: Pod[] | undefined;
  let onPods: ((pods: readonly Pod[]) => void) | undefined;
  let watcher: FSWatcher | undefined;
  let interval: NodeJS.Timeout | undefined;
  let settle: NodeJS.Timeout | undefined;
  let stopped = false;
  let reading: Promise<void> | undefined;
  let again = false;

  const readAll = async (): Promise<Pod[]> => {
    let files: string[] | undefined;
    try {
      files = await manifestFiles(options.path);
    } catch (e: unknown) {
      options.logger.error({ err: e, path: options.path }, 'Unable to read pod manifest path');
      return last ?? [];
    }
    if (files === undefined) return [];
    const pods: Pod[] = [];
    const names = new Set<string>();
    const nextSeen = new Map<string, string>();
    const failed = new Set<string>();
    for (const file of files) {
      try {
        const manifest = parseManifest(file, await readFile(file, 'utf8'));
        const draft = staticPodFromManifest(manifest, { nodeName: options.nodeName, path: file, seen: '' });
        const uid = draft.metadata.uid!;
        const stamp = seen.get(uid) ?? nextSeen.get(uid) ?? seenStamp(now());
        draft.metadata.annotations![CONFIG_SEEN_ANNOTATION] = stamp;
        const key = `${draft.metadata.namespace}/${draft.metadata.name}`;
        if (names.has(key)) throw new Error(`pod ${key} is already defined by another file of ${options.path}; ignoring this one`);
        names.add(key);
        nextSeen.set(uid, stamp);
        pods.push(draft);
        reported.delete(file);
      } catch (e: unknown) {
        failed.add(file);
        const text = e instanceof Error ? e.message : String(e);
        if (reported.get(file) !== text) {
          reported.set(file, text);
          options.logger.error({ err: e, path: file }, 'Could not process static pod manifest');
        }
      }
    }
    for (const file of [...reported.keys()]) if (!failed.has(file)) reported.delete(file);
    seen = nextSeen;
    return pods;
  };

  /** Reads and emits if changed; concurrent calls fold into one more read. */
  const refresh = (): Promise<void> => {
    if (reading !== undefined) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        const pods = await readAll();
        if (stopped) return;
        if (last === undefined || !jsonEqual(pods, last)) {
          last = pods;
          onPods?.(pods);
        }
        ensureWatcher();
      } while (again && !stopped);
    })().finally(() => {
      reading = undefined;
    });
    return reading;
  };

  const scheduleRefresh = (): void => {
    if (stopped) return;
    clearTimeout(settle);
    settle = setTimeout(() => void refresh(), settleMs);
  };

  /** Watch the path once it exists (it may be created after the kubelet starts). */
  const ensureWatcher = (): void => {
    if (watcher !== undefined || stopped) return;
    try {
      watcher = watch(options.path, { persistent: false }, scheduleRefresh);
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
        scheduleRefresh();
      });
    } catch {
      watcher = undefined; // not there yet: the periodic check reads it again
    }
  };

  return {
    name: 'file',
    async start(callback): Promise<void> {
      onPods = callback;
      await refresh();
      interval = setInterval(() => void refresh(), Math.max(options.checkFrequencyMs, 10));
      interval.unref();
    },
    stop(): void {
      stopped = true;
      clearInterval(interval);
      clearTimeout(settle);
      watcher?.close();
      watcher = undefined;
    },
  };
}
