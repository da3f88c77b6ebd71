/**
 * The real {@link Client}: the API's verbs over HTTPS (HTTP/1.1, keep-alive),
 * JSON bodies, and watches read as streams of newline-delimited events.
 *
 * @example
 *   const client = newHttpClient(restConfigFromKubeconfig('.k8ts/admin.kubeconfig'));
 *   const pods = client.resource<KubeObject>(PODS);
 *   for await (const event of pods.watch({ namespace: 'default' })) console.log(event.type);
 */
import type { IncomingMessage } from 'node:http';
import type { KubeList, KubeObject } from '../../machinery/meta.js';
import { isNotFound, StatusError } from '../../machinery/status.js';
import type {
  Client,
  DeleteOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceClient,
  ResourceRef,
  WatchEvent,
  WatchOptions,
  WatchStream,
  WriteOptions,
} from './interface.js';
import { queryString, resourcePath, type QueryValue } from './request-path.js';
import type { RestConfig } from './rest-config.js';
import { Transport, type TransportOptions } from './transport.js';
import { WatchDecoder } from './watch-decoder.js';

export interface HttpClient extends Client {
  /** Close idle connections (so a process can exit); watches end by their own cancel(). */
  close(): void;
}

export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export function newHttpClient(config: RestConfig, options: TransportOptions = {}): HttpClient {
  const transport = new Transport(config, options);
  return {
    resource: <T extends KubeObject = KubeObject>(ref: ResourceRef): ResourceClient<T> => new HttpResourceClient<T>(transport, ref),
    close: () => transport.close(),
  };
}

const writeQuery = (o: WriteOptions | undefined): Record<string, QueryValue> => ({
  dryRun: o?.dryRun === true ? 'All' : undefined,
  fieldManager: o?.fieldManager,
  fieldValidation: o?.fieldValidation,
});

function parseJson<R>(body: string, what: string): R {
  try {
    return JSON.parse(body) as R;
  } catch (e: unknown) {
    throw new StatusError({ code: 500, reason: 'InternalError', message: `the server sent ${what} that is not JSON: ${body.slice(0, 200)}` }, { cause: e });
  }
}

/**
 * What a DELETE response says of the object: a Status or an object never
 * marked for deletion is gone; one kept by finalizers still exists. An object
 * marked with a grace period is ambiguous — the server answers with the last
 * state both when it only marked it and when a shorter grace period removed
 * it at once — so the client asks again ('check').
 */
export function deleteOutcome(object: KubeObject): 'gone' | 'exists' | 'check' {
  if (object.kind === 'Status') return 'gone';
  const meta = object.metadata;
  if (meta?.deletionTimestamp === undefined || meta.deletionTimestamp === null) return 'gone';
  if ((meta.finalizers?.length ?? 0) > 0) return 'exists';
  return (meta.deletionGracePeriodSeconds ?? 0) > 0 ? 'check' : 'gone';
}

class HttpResourceClient<T extends KubeObject> implements ResourceClient<T> {
  constructor(
    private readonly transport: Transport,
    readonly ref: ResourceRef,
  ) {}

  private namespaceFor(name: string | undefined, namespace: string | undefined): string | undefined {
    if (!this.ref.namespaced) return undefined;
    if (namespace === undefined || namespace === '') {
      throw new StatusError({
        code: 400,
        reason: 'BadRequest',
        message: `a namespace is required for ${this.ref.resource}${name === undefined ? '' : ` "${name}"`}`,
      });
    }
    return namespace;
  }

  private path(name: string | undefined, namespace: string | undefined, subresource?: string): string {
    return resourcePath(this.ref, { name, namespace: this.namespaceFor(name, namespace), subresource });
  }

  private async call<R>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, contentType?: string): Promise<R> {
    const res = await this.transport.request({
      method,
      path,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      ...(contentType === undefined ? {} : { contentType }),
    });
    return parseJson<R>(res.body, `a ${method} response`);
  }

  private nameOf(object: T): string {
    const name = object.metadata?.name;
    if (name === undefined || name === '') throw new StatusError({ code: 400, reason: 'BadRequest', message: `an update of ${this.ref.resource} needs metadata.name` });
    return name;
  }

  async get(name: string, options?: { readonly namespace?: string }): Promise<T> {
    return this.call<T>('GET', this.path(name, options?.namespace));
  }

  async list(options: ListOptions = {}): Promise<KubeList<T>> {
    const path = resourcePath(this.ref, { namespace: this.ref.namespaced ? options.namespace : undefined });
    const query = queryString({
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit,
      continue: options.continue,
      resourceVersion: options.resourceVersion,
      resourceVersionMatch: options.resourceVersionMatch,
    });
    return this.call<KubeList<T>>('GET', path + query);
  }

  watch(options: WatchOptions = {}): WatchStream<T> {
    const path = resourcePath(this.ref, { namespace: this.ref.namespaced ? options.namespace : undefined });
    const query = queryString({
      watch: 'true',
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      resourceVersion: options.resourceVersion,
      allowWatchBookmarks: options.allowWatchBookmarks === true ? 'true' : undefined,
      timeoutSeconds: options.timeoutSeconds,
    });
    const abort = new AbortController();
    return new HttpWatchStream<T>((signal) => this.transport.stream({ method: 'GET', path: path + query, signal }), abort);
  }

  async create(object: T, options?: WriteOptions): Promise<T> {
    const path = this.path(undefined, options?.namespace ?? object.metadata?.namespace ?? undefined);
    return this.call<T>('POST', path + queryString(writeQuery(options)), object);
  }

  async update(object: T, options?: WriteOptions): Promise<T> {
    const path = this.path(this.nameOf(object), options?.namespace ?? object.metadata?.namespace ?? undefined);
    return this.call<T>('PUT', path + queryString(writeQuery(options)), object);
  }

  async updateStatus(object: T, options?: WriteOptions): Promise<T> {
    const path = this.path(this.nameOf(object), options?.namespace ?? object.metadata?.namespace ?? undefined, 'status');
    return this.call<T>('PUT', path + queryString(writeQuery(options)), object);
  }

  async patch(name: string, type: PatchType, patch: unknown, options?: PatchOptions): Promise<T> {
    const path = this.path(name, options?.namespace, options?.subresource);
    const query = queryString({ ...writeQuery(options), force: options?.force === true ? 'true' : undefined });
    return this.call<T>('PATCH', path + query, patch, PATCH_CONTENT_TYPES[type]);
  }

  async delete(name: string, options: DeleteOptions = {}): Promise<T | undefined> {
    const body = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      ...(options.propagationPolicy === undefined ? {} : { propagationPolicy: options.propagationPolicy }),
      ...(options.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: options.gracePeriodSeconds }),
      ...(options.preconditions === undefined ? {} : { preconditions: options.preconditions }),
      ...(options.dryRun === true ? { dryRun: ['All'] } : {}),
    };
    const result = await this.call<KubeObject>('DELETE', this.path(name, options.namespace), body);
    const outcome = deleteOutcome(result);
    if (outcome === 'gone') return undefined;
    if (outcome === 'exists' || options.dryRun === true) return result as T;
    try {
      const now = await this.get(name, options.namespace === undefined ? {} : { namespace: options.namespace });
      return now.metadata.uid === result.metadata.uid ? now : undefined;
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async getSubresource<R = KubeObject>(name: string, subresource: string, options?: { readonly namespace?: string }): Promise<R> {
    return this.call<R>('GET', this.path(name, options?.namespace, subresource));
  }

  async createSubresource<R = KubeObject>(name: string, subresource: string, body: unknown, options?: WriteOptions): Promise<R> {
    return this.call<R>('POST', this.path(name, options?.namespace, subresource) + queryString(writeQuery(options)), body);
  }

  async updateSubresource<R = KubeObject>(name: string, subresource: string, body: unknown, options?: WriteOptions): Promise<R> {
    return this.call<R>('PUT', this.path(name, options?.namespace, subresource) + queryString(writeQuery(options)), body);
  }
}

/**
 * A watch over one streaming response. The response opens on the first
 * iteration; cancel() aborts it (iteration then ends quietly). An ERROR event
 * throws its Status as a StatusError; a connection lost mid-stream throws a 503.
 */
export class HttpWatchStream<T> implements WatchStream<T> {
  private cancelled = false;

  constructor(
    private readonly open: (signal: AbortSignal) => Promise<IncomingMessage>,
    private readonly abort: AbortController = new AbortController(),
  ) {}

  cancel(): void {
    this.cancelled = true;
    this.abort.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.cancelled) return;
    let response: IncomingMessage;
    try {
      response = await this.open(this.abort.signal);
    } catch (e: unknown) {
      if (this.cancelled) return;
      throw e;
    }
    const decoder = new WatchDecoder();
    try {
      for await (const chunk of response) {
        for (const event of decoder.push(chunk as Buffer)) yield toWatchEvent<T>(event.type, event.object);
      }
      if (!response.complete && !this.cancelled) throw Object.assign(new Error('the watch connection closed mid-response'), { code: 'ECONNRESET' });
      for (const event of decoder.end()) yield toWatchEvent<T>(event.type, event.object);
    } catch (e: unknown) {
      if (this.cancelled) return;
      if (e instanceof StatusError) throw e;
      throw new StatusError({ code: 503, reason: 'ServiceUnavailable', message: `the watch broke: ${(e as Error).message}` }, { cause: e });
    } finally {
      response.destroy();
    }
  }
}

function toWatchEvent<T>(type: string, object: unknown): WatchEvent<T> {
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
    case 'BOOKMARK':
      return { type, object: object as T };
    case 'ERROR': {
      const code = (object as { code?: unknown } | null)?.code;
      throw statusErrorFromEvent(typeof code === 'number' ? code : 500, object);
    }
    default:
      throw new StatusError({ code: 500, reason: 'InternalError', message: `a watch sent an event of unknown type "${type}"` });
  }
}

function statusErrorFromEvent(code: number, object: unknown): StatusError {
  return StatusError.fromResponse(code, object);
}
