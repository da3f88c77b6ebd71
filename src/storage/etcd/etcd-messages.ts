/**
 * TypeScript shapes of the etcd messages in etcd-proto.ts, as proto-loader
 * builds and reads them with LOADER_OPTIONS.
 *
 * Requests (`…Request`) are what we write: optional fields, int64 as a number or
 * a decimal string, bytes as a Uint8Array. Responses are what we read: every
 * scalar present (int64 as a decimal string), bytes as Buffers, message fields
 * null when etcd left them out, and each oneof's virtual field naming the member
 * that is set.
 */

/** An int64 as we send it. */
export type Int64 = number | string;

// Enum names exactly as in the .proto (see the warning in etcd-proto.ts).
export type CompareResult = 'EQUAL' | 'GREATER' | 'LESS' | 'NOT_EQUAL';
export type CompareTarget = 'VERSION' | 'CREATE' | 'MOD' | 'VALUE' | 'LEASE';
export type EventType = 'PUT' | 'DELETE';

/** The enum names etcd-proto.ts defines, for the test that keeps both in step. */
export const ENUM_NAMES = {
  'etcdserverpb.Compare.CompareResult': ['EQUAL', 'GREATER', 'LESS', 'NOT_EQUAL'],
  'etcdserverpb.Compare.CompareTarget': ['VERSION', 'CREATE', 'MOD', 'VALUE', 'LEASE'],
  'mvccpb.Event.EventType': ['PUT', 'DELETE'],
} as const satisfies Record<string, readonly string[]>;

export interface ResponseHeader {
  readonly cluster_id: string;
  readonly member_id: string;
  readonly revision: string;
  readonly raft_term: string;
}

export interface KeyValueMessage {
  readonly key: Buffer;
  readonly create_revision: string;
  readonly mod_revision: string;
  readonly version: string;
  readonly value: Buffer;
  readonly lease: string;
}

export interface EventMessage {
  readonly type: EventType;
  readonly kv: KeyValueMessage | null;
  readonly prev_kv: KeyValueMessage | null;
}

export interface RangeRequest {
  key: Uint8Array;
  range_end?: Uint8Array;
  limit?: Int64;
  revision?: Int64;
  serializable?: boolean;
  keys_only?: boolean;
  count_only?: boolean;
}

export interface RangeResponse {
  readonly header: ResponseHeader | null;
  readonly kvs: readonly KeyValueMessage[];
  readonly more: boolean;
  readonly count: string;
}

export interface PutRequest {
  key: Uint8Array;
  value: Uint8Array;
  lease?: Int64;
  prev_kv?: boolean;
}

export interface PutResponse {
  readonly header: ResponseHeader | null;
  readonly prev_kv: KeyValueMessage | null;
}

export interface DeleteRangeRequest {
  key: Uint8Array;
  range_end?: Uint8Array;
  prev_kv?: boolean;
}

export interface DeleteRangeResponse {
  readonly header: ResponseHeader | null;
  readonly deleted: string;
  readonly prev_kvs: readonly KeyValueMessage[];
}

export type RequestOp =
  | { request_range: RangeRequest }
  | { request_put: PutRequest }
  | { request_delete_range: DeleteRangeRequest };

export interface ResponseOp {
  readonly response?: 'response_range' | 'response_put' | 'response_delete_range';
  readonly response_range?: RangeResponse | null;
  readonly response_put?: PutResponse | null;
  readonly response_delete_range?: DeleteRangeResponse | null;
}

/** One guard of a transaction: `target(key) result value`, e.g. MOD(key) EQUAL 42. */
export type Compare = { key: Uint8Array; result: CompareResult; range_end?: Uint8Array } & (
  | { target: 'VERSION'; version: Int64 }
  | { target: 'CREATE'; create_revision: Int64 }
  | { target: 'MOD'; mod_revision: Int64 }
  | { target: 'VALUE'; value: Uint8Array }
  | { target: 'LEASE'; lease: Int64 }
);

export interface TxnRequest {
  compare?: Compare[];
  success?: RequestOp[];
  failure?: RequestOp[];
}

export interface TxnResponse {
  readonly header: ResponseHeader | null;
  readonly succeeded: boolean;
  readonly responses: readonly ResponseOp[];
}

export interface CompactionRequest {
  revision: Int64;
  physical?: boolean;
}

export interface CompactionResponse {
  readonly header: ResponseHeader | null;
}

export interface WatchCreateRequest {
  key: Uint8Array;
  range_end?: Uint8Array;
  start_revision?: Int64;
  progress_notify?: boolean;
  prev_kv?: boolean;
  watch_id?: Int64;
  fragment?: boolean;
}

export type WatchRequest =
  | { create_request: WatchCreateRequest }
  | { cancel_request: { watch_id: Int64 } }
  | { progress_request: Record<string, never> };

export interface WatchResponse {
  readonly header: ResponseHeader | null;
  readonly watch_id: string;
  readonly created: boolean;
  readonly canceled: boolean;
  readonly compact_revision: string;
  readonly cancel_reason: string;
  readonly fragment: boolean;
  readonly events: readonly EventMessage[];
}

export type StatusRequest = Record<string, never>;

export interface StatusResponse {
  readonly header: ResponseHeader | null;
  readonly version: string;
  readonly dbSize: string;
  readonly leader: string;
  readonly raftIndex: string;
  readonly raftTerm: string;
  readonly raftAppliedIndex: string;
  readonly errors: readonly string[];
  readonly dbSizeInUse: string;
  readonly isLearner: boolean;
}
