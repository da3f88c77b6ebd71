/**
 * The part of etcd's v3 gRPC API that k8ts uses, as our own minimal .proto
 * text, and the loaded gRPC method definitions.
 *
 * Field numbers, enum values, and package and service names follow etcd's
 * api/etcdserverpb/rpc.proto and api/mvccpb/kv.proto (the wire contract); every
 * message and field we do not use is left out. The text lives in this module, so
 * nothing has to be copied next to the compiled JavaScript.
 *
 * Enum names matter: requests carry enums as strings, and protobufjs turns an
 * unknown name silently into 0 (for Compare.target that is VERSION, which makes a
 * compare-and-swap quietly compare the wrong field). The string unions in
 * etcd-messages.ts must list exactly the names below; etcd-proto.test.ts checks it.
 */
import protobuf from 'protobufjs';
import { fromJSON, type MethodDefinition, type Options, type PackageDefinition } from '@grpc/proto-loader';

/** mvccpb: the stored key-value pair and the watch event. */
export const MVCC_PROTO = `
syntax = "proto3";
package mvccpb;

message KeyValue {
  bytes key = 1;
  int64 create_revision = 2;
  int64 mod_revision = 3;
  int64 version = 4;
  bytes value = 5;
  int64 lease = 6;
}

message Event {
  enum EventType {
    PUT = 0;
    DELETE = 1;
  }
  EventType type = 1;
  KeyValue kv = 2;
  KeyValue prev_kv = 3;
}
`;

/** etcdserverpb: the KV, Watch and Maintenance services, reduced to what we call. */
export const ETCDSERVER_PROTO = `
syntax = "proto3";
package etcdserverpb;

service KV {
  rpc Range(RangeRequest) returns (RangeResponse);
  rpc Put(PutRequest) returns (PutResponse);
  rpc DeleteRange(DeleteRangeRequest) returns (DeleteRangeResponse);
  rpc Txn(TxnRequest) returns (TxnResponse);
  rpc Compact(CompactionRequest) returns (CompactionResponse);
}

service Watch {
  rpc Watch(stream WatchRequest) returns (stream WatchResponse);
}

service Maintenance {
  rpc Status(StatusRequest) returns (StatusResponse);
}

message ResponseHeader {
  uint64 cluster_id = 1;
  uint64 member_id = 2;
  int64 revision = 3;
  uint64 raft_term = 4;
}

message RangeRequest {
  bytes key = 1;
  bytes range_end = 2;
  int64 limit = 3;
  int64 revision = 4;
  bool serializable = 7;
  bool keys_only = 8;
  bool count_only = 9;
}

message RangeResponse {
  ResponseHeader header = 1;
  repeated mvccpb.KeyValue kvs = 2;
  bool more = 3;
  int64 count = 4;
}

message PutRequest {
  bytes key = 1;
  bytes value = 2;
  int64 lease = 3;
  bool prev_kv = 4;
}

message PutResponse {
  ResponseHeader header = 1;
  mvccpb.KeyValue prev_kv = 2;
}

message DeleteRangeRequest {
  bytes key = 1;
  bytes range_end = 2;
  bool prev_kv = 3;
}

message DeleteRangeResponse {
  ResponseHeader header = 1;
  int64 deleted = 2;
  repeated mvccpb.KeyValue prev_kvs = 3;
}

message RequestOp {
  oneof request {
    RangeRequest request_range = 1;
    PutRequest request_put = 2;
    DeleteRangeRequest request_delete_range = 3;
  }
}

message ResponseOp {
  oneof response {
    RangeResponse response_range = 1;
    PutResponse response_put = 2;
    DeleteRangeResponse response_delete_range = 3;
  }
}

message Compare {
  enum CompareResult {
    EQUAL = 0;
    GREATER = 1;
    LESS = 2;
    NOT_EQUAL = 3;
  }
  enum CompareTarget {
    VERSION = 0;
    CREATE = 1;
    MOD = 2;
    VALUE = 3;
    LEASE = 4;
  }
  CompareResult result = 1;
  CompareTarget target = 2;
  bytes key = 3;
  oneof target_union {
    int64 version = 4;
    int64 create_revision = 5;
    int64 mod_revision = 6;
    bytes value = 7;
    int64 lease = 8;
  }
  bytes range_end = 64;
}

message TxnRequest {
  repeated Compare compare = 1;
  repeated RequestOp success = 2;
  repeated RequestOp failure = 3;
}

message TxnResponse {
  ResponseHeader header = 1;
  bool succeeded = 2;
  repeated ResponseOp responses = 3;
}

message CompactionRequest {
  int64 revision = 1;
  bool physical = 2;
}

message CompactionResponse {
  ResponseHeader header = 1;
}

message WatchRequest {
  oneof request_union {
    WatchCreateRequest create_request = 1;
    WatchCancelRequest cancel_request = 2;
    WatchProgressRequest progress_request = 3;
  }
}

message WatchCreateRequest {
  bytes key = 1;
  bytes range_end = 2;
  int64 start_revision = 3;
  bool progress_notify = 4;
  bool prev_kv = 6;
  int64 watch_id = 7;
  bool fragment = 8;
}

message WatchCancelRequest {
  int64 watch_id = 1;
}

message WatchProgressRequest {
}

message WatchResponse {
  ResponseHeader header = 1;
  int64 watch_id = 2;
  bool created = 3;
  bool canceled = 4;
  int64 compact_revision = 5;
  string cancel_reason = 6;
  bool fragment = 7;
  repeated mvccpb.Event events = 11;
}

message StatusRequest {
}

message StatusResponse {
  ResponseHeader header = 1;
  string version = 2;
  int64 dbSize = 3;
  uint64 leader = 4;
  uint64 raftIndex = 5;
  uint64 raftTerm = 6;
  uint64 raftAppliedIndex = 7;
  repeated string errors = 8;
  int64 dbSizeInUse = 9;
  bool isLearner = 10;
}
`;

/**
 * How messages become JavaScript objects: field names as in the .proto, int64 as
 * decimal strings (converted to numbers, with a range check, in etcd-convert.ts),
 * enums as their names, every scalar present with its default, message fields
 * null when absent, and a virtual field naming the member set in each oneof.
 * Bytes stay Buffers (proto-loader's default).
 */
export const LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

let loaded: PackageDefinition | undefined;

/** The gRPC package definition of {@link MVCC_PROTO} and {@link ETCDSERVER_PROTO}, parsed once. */
export function etcdPackageDefinition(): PackageDefinition {
  if (loaded === undefined) {
    const root = new protobuf.Root();
    protobuf.parse(MVCC_PROTO, root, { keepCase: true });
    protobuf.parse(ETCDSERVER_PROTO, root, { keepCase: true });
    root.resolveAll(); // fails here, not at the first call, if a type name is wrong
    loaded = fromJSON(root.toJSON(), LOADER_OPTIONS);
  }
  return loaded;
}

/** The services and methods we call, by their gRPC names. */
export type EtcdMethodName =
  | 'KV.Range'
  | 'KV.Put'
  | 'KV.DeleteRange'
  | 'KV.Txn'
  | 'KV.Compact'
  | 'Watch.Watch'
  | 'Maintenance.Status';

/** The definition (path, serializers) of one method, e.g. `method('KV.Range')`. */
export function etcdMethod(name: EtcdMethodName): MethodDefinition<object, object> {
  const [service, rpc] = name.split('.') as [string, string];
  const definition = etcdPackageDefinition()[`etcdserverpb.${service}`];
  if (definition === undefined || 'format' in definition) throw new Error(`etcd proto has no service ${service}`);
  const method = definition[rpc];
  if (method === undefined) throw new Error(`etcd proto has no method ${name}`);
  return method;
}
