/**
 * Watch: a long-lived response streaming one JSON object per change,
 * `{"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":…}` (or, when the
 * client accepts protobuf, length-prefixed metav1.WatchEvent frames as
 * application/vnd.kubernetes.protobuf;stream=watch), from any
 * retained resourceVersion, so that nobody polls. With `resourceVersion` unset
 * or "0" the stream starts with the current state as ADDED events; a
 * compacted resourceVersion ends the stream with an ERROR event carrying a
 * 410 Expired Status, which tells the client to list again.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { TableConvertor } from '../../machinery/table.js';
import { expired, internalError, notAcceptable, StatusError } from '../../machinery/status.js';
import { isStorageError } from '../../storage/errors.js';
import type { ObjectEvent } from '../registry/generic/object-storage.js';
import type { RequestContext } from '../server/context.js';
import { encodeWatchFrame, PROTOBUF_WATCH_MEDIA_TYPE } from '../../api/protobuf/envelope.js';
import { watchEventJsonBytes } from '../server/json-memo.js';
import { statusBody, writeWarnings } from '../server/response.js';
import { validateListOptions } from './list-options.js';
import { negotiateOutput, SERVED_MEDIA_TYPES, type OutputFormat } from './negotiation.js';
import { parseBool, parseInt64 } from './query.js';
import { selectionPredicate } from './selection.js';
import type { Target, VerbHandler } from './target.js';
import { parseResourceVersion, type StoreWatch } from '../registry/generic/store.js';
import { parseIncludeObject, partialObjectMetadata, toTable } from './transform.js';

export interface WatchSettings {
  /** How often a watch that asked for bookmarks gets one (upstream: about a minute). */
  readonly bookmarkIntervalMs: number;
  /** The longest a watch lasts without timeoutSeconds (upstream: --min-request-timeout 1800 s, randomized up to twice that). */
  readonly maxTimeoutMs: number;
}

export const DEFAULT_WATCH_SETTINGS: WatchSettings = { bookmarkIntervalMs: 60_000, maxTimeoutMs: 1800_000 };

type WatchEventType = ObjectEvent['type'] | 'BOOKMARK' | 'ERROR';

export function newWatchHandler(settings: WatchSettings = DEFAULT_WATCH_SETTINGS): VerbHandler {
  return async (ctx, t) => {
    const format = negotiateOutput(ctx.req.headers.accept, { transforms: true });
    // As upstream's NegotiateOutputMediaTypeStream: the chosen type needs a stream
    // serializer, and YAML has none.
    if (format.encoding === 'yaml') throw notAcceptable(SERVED_MEDIA_TYPES);
    validateListOptions(ctx.query, true);
    const predicate = selectionPredicate(ctx.query, t);
    const timeoutSeconds = parseInt64(ctx.query, 'timeoutSeconds');
    const bookmarks = parseBool(ctx.query, 'allowWatchBookmarks');
    const sendInitialEvents = ctx.query.has('sendInitialEvents') ? parseBool(ctx.query, 'sendInitialEvents') : undefined;
    const rv = ctx.query.get('resourceVersion') ?? '';
    if (rv !== '') parseResourceVersion(rv); // a resourceVersion that does not parse is the request's error (422)
    let events: StoreWatch | undefined;
    let refused: StatusError | undefined;
    try {
      events = await t.store.watch(t.namespace, {
        resourceVersion: rv,
        ...(predicate !== undefined ? { predicate } : {}),
        allowWatchBookmarks: bookmarks === true,
        ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
      });
    } catch (e: unknown) {
      // Upstream's cacher: past admission and a parsed resourceVersion, a watch that
      // cannot start (a resourceVersion newer than the cache) is an ERROR event on a 200 stream.
      if (!(e instanceof StatusError) || e.code !== 504) throw e;
      refused = e;
    }

    const res = ctx.res;
    writeWarnings(ctx);
    const contentType = format.encoding === 'protobuf' ? PROTOBUF_WATCH_MEDIA_TYPE : format.contentType;
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache, private' });
    // Send the headers now: a client waits for them before it watches.
    (res as { flushHeaders?: () => void }).flushHeaders?.();

    const writer = new EventWriter(ctx, t, format);
    if (events === undefined) {
      await writer.error(refused);
      res.end();
      return;
    }
    let closed = false;
    const stop = (): void => {
      if (closed) return;
      closed = true;
      events.cancel();
    };
    ctx.req.on('close', stop);
    res.on('close', stop);
    const timeoutMs = timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : settings.maxTimeoutMs * (1 + Math.random());
    const timer = setTimeout(stop, timeoutMs);
    let lastRevision = events.startRevision;
    let initialLeft = events.initialEvents;
    const bookmarkTimer = bookmarks
      ? setInterval(() => {
          if (initialLeft === 0) void writer.bookmark(lastRevision, false);
        }, settings.bookmarkIntervalMs)
      : undefined;
    bookmarkTimer?.unref();
    try {
      // With sendInitialEvents, a bookmark marks the end of the initial state.
      if (initialLeft === 0 && sendInitialEvents === true) await writer.bookmark(lastRevision, true);
      for await (const event of events) {
        if (closed) break;
        lastRevision = Math.max(lastRevision, event.revision);
        await writer.event(event.type, event.object);
        if (initialLeft > 0 && --initialLeft === 0 && sendInitialEvents === true) await writer.bookmark(events.startRevision, true);
      }
    } catch (e: unknown) {
      if (!closed) await writer.error(e);
    } finally {
      clearTimeout(timer);
      if (bookmarkTimer !== undefined) clearInterval(bookmarkTimer);
      stop();
      if (!res.writableEnded) res.end();
    }
  };
}

/** Encodes and writes events in the negotiated shape, waiting when the client reads slowly. */
class EventWriter {
  private readonly convertor: TableConvertor<KubeObject> | undefined;
  private first = true;

  constructor(
    private readonly ctx: RequestContext,
    private readonly target: Target,
    private readonly format: OutputFormat,
  ) {
    this.convertor = target.store.strategy.table;
  }

  async event(type: WatchEventType, object: KubeObject): Promise<void> {
    let shaped: unknown = object;
    if (this.format.shape === 'Table' && type !== 'BOOKMARK' && type !== 'ERROR') {
      shaped = toTable([object], { resourceVersion: object.metadata.resourceVersion ?? '' }, this.convertor, {
        include: parseIncludeObject(this.ctx.query),
        noHeaders: !this.first,
        ...(this.format.apiVersion !== undefined ? { apiVersion: this.format.apiVersion } : {}),
      });
      this.first = false;
    } else if (this.format.shape === 'PartialObjectMetadata' && type !== 'ERROR') {
      shaped = partialObjectMetadata(object, this.format.apiVersion);
    }
    await this.write(this.encode(type, shaped));
  }

  /** One event as the negotiated stream carries it: a JSON line or a protobuf frame. */
  private encode(type: WatchEventType, object: unknown): string | Buffer {
    if (this.format.encoding === 'protobuf') return encodeWatchFrame(type, object);
    return watchEventJsonBytes(type, object);
  }

  bookmark(revision: number, initialEventsEnd: boolean): Promise<void> {
    const apiVersion = this.target.store.apiVersion();
    const metadata: KubeObject['metadata'] = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    return this.event('BOOKMARK', { kind: this.target.resource.kind, apiVersion, metadata });
  }

  async error(e: unknown): Promise<void> {
    let status: StatusError;
    if (isStorageError(e, 'Compacted')) {
      const requested = this.ctx.query.get('resourceVersion') ?? '';
      status = expired(`too old resource version: ${requested} (${e.compactRevision ?? 0})`);
    } else if (e instanceof StatusError) {
      status = e;
    } else {
      status = internalError(e);
    }
    await this.write(this.encode('ERROR', statusBody(status.status)));
  }

  private write(line: string | Buffer): Promise<void> {
    const res = this.ctx.res;
    if (res.writableEnded || res.destroyed) return Promise.resolve();
    const ok = (res as unknown as NodeJS.WritableStream).write(line);
    if (ok) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
}
