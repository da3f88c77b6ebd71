/**
 * A thin, typed etcd v3 client: one gRPC channel, a promise per unary call, and
 * the raw bidirectional Watch stream. It knows nothing of the Storage
 * semantics (etcd-storage.ts) and does not translate errors (etcd-errors.ts):
 * calls reject with grpc-js ServiceErrors.
 */
import {
  Client,
  Metadata,
  credentials,
  type ChannelCredentials,
  type ClientDuplexStream,
  type ClientOptions,
  type ClientUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { parseEtcdEndpoints } from './etcd-endpoints.js';
import type {
  CompactionRequest,
  CompactionResponse,
  DeleteRangeRequest,
  DeleteRangeResponse,
  PutRequest,
  PutResponse,
  RangeRequest,
  RangeResponse,
  StatusRequest,
  StatusResponse,
  TxnRequest,
  TxnResponse,
  WatchRequest,
  WatchResponse,
} from './etcd-messages.js';
import { etcdMethod, type EtcdMethodName } from './etcd-proto.js';

export interface EtcdClientOptions {
  /** etcd client URLs, e.g. `['http://127.0.0.1:2379']` (see parseEtcdEndpoints). */
  readonly endpoints: readonly string[];
  /** Deadline of each unary call unless the call gives its own (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** TLS material for https:// endpoints (PEM); without it the system roots are used. */
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
}

/** Per-call settings. */
export interface CallSettings {
  /** Overrides the client's request timeout for this call. */
  readonly timeoutMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

const CHANNEL_OPTIONS: ClientOptions = {
  // Watch batches and big lists can exceed gRPC's 4 MiB default; etcd itself sends up to 2 GiB.
  'grpc.max_receive_message_length': -1,
  'grpc.max_send_message_length': -1,
  // grpc-js backs off up to 2 minutes by default: too slow to notice that etcd is back.
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 5_000,
  // Notice a dead member under a quiet watch stream; etcd accepts pings every 5 s or slower.
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
};

/** An error of a call made after close(), shaped like a gRPC CANCELLED error. */
export class EtcdClientClosedError extends Error {
  override readonly name = 'EtcdClientClosedError';
  constructor() {
    super('etcd client is closed');
  }
}

export class EtcdClient {
  private readonly client: Client;
  private readonly requestTimeoutMs: number;
  /** Unary calls under way, cancelled by close(). */
  private readonly inFlight = new Set<ClientUnaryCall>();
  private closed = false;

  constructor(options: EtcdClientOptions) {
    const { target, secure } = parseEtcdEndpoints(options.endpoints);
    let creds: ChannelCredentials = credentials.createInsecure();
    if (secure) {
      const tls = options.tls ?? {};
      creds = credentials.createSsl(tls.ca ?? null, tls.key ?? null, tls.cert ?? null);
    }
    this.client = new Client(target, creds, CHANNEL_OPTIONS);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  range(request: RangeRequest, settings?: CallSettings): Promise<RangeResponse> {
    return this.unary('KV.Range', request, settings);
  }

  put(request: PutRequest, settings?: CallSettings): Promise<PutResponse> {
    return this.unary('KV.Put', request, settings);
  }

  deleteRange(request: DeleteRangeRequest, settings?: CallSettings): Promise<DeleteRangeResponse> {
    return this.unary('KV.DeleteRange', request, settings);
  }

  txn(request: TxnRequest, settings?: CallSettings): Promise<TxnResponse> {
    return this.unary('KV.Txn', request, settings);
  }

  compact(request: CompactionRequest, settings?: CallSettings): Promise<CompactionResponse> {
    return this.unary('KV.Compact', request, settings);
  }

  status(settings?: CallSettings): Promise<StatusResponse> {
    const request: StatusRequest = {};
    return this.unary('Maintenance.Status', request, settings);
  }

  /**
   * Open a Watch stream. The caller owns it: write create/cancel requests, read
   * responses, and `cancel()` it when done (then ignore its CANCELLED error).
   */
  watch(): ClientDuplexStream<WatchRequest, WatchResponse> {
    if (this.closed) throw new EtcdClientClosedError();
    const method = etcdMethod('Watch.Watch');
    const metadata = new Metadata();
    // As etcd's Go client does: a member that loses its leader ends the stream
    // ("etcdserver: no leader") instead of silently delivering nothing.
    metadata.set('hasleader', 'true');
    return this.client.makeBidiStreamRequest<WatchRequest, WatchResponse>(
      method.path,
      (value) => method.requestSerialize(value),
      (bytes) => method.responseDeserialize(bytes) as WatchResponse,
      metadata,
    );
  }

  /**
   * Resolve once etcd answers a read, retrying the connection until `deadline`
   * (a Date.now() timestamp); reject with the last error after it.
   */
  async waitUntilReady(deadline: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.client.waitForReady(deadline, (error?: Error) => (error === undefined ? resolve() : reject(error)));
    });
    await this.range({ key: Buffer.from([0]), count_only: true }, { timeoutMs: Math.max(1, deadline - Date.now()) });
  }

  /** Cancel the calls under way and close the channel. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const call of this.inFlight) call.cancel();
    this.inFlight.clear();
    this.client.close();
  }

  private unary<Req extends object, Res>(name: EtcdMethodName, request: Req, settings?: CallSettings): Promise<Res> {
    if (this.closed) return Promise.reject(new EtcdClientClosedError());
    const method = etcdMethod(name);
    const deadline = Date.now() + (settings?.timeoutMs ?? this.requestTimeoutMs);
    return new Promise<Res>((resolve, reject) => {
      const call = this.client.makeUnaryRequest<Req, Res>(
        method.path,
        (value) => method.requestSerialize(value),
        (bytes) => method.responseDeserialize(bytes) as Res,
        request,
        new Metadata(),
        { deadline },
        (error: ServiceError | null, response?: Res) => {
          this.inFlight.delete(call);
          if (error !== null) reject(error);
          else if (response === undefined) reject(new Error(`etcd ${name} returned no response`));
          else resolve(response);
        },
      );
      this.inFlight.add(call);
    });
  }
}
