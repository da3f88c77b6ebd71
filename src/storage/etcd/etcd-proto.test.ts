import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { ENUM_NAMES } from './etcd-messages.js';
import { ETCDSERVER_PROTO, etcdMethod, MVCC_PROTO } from './etcd-proto.js';

/** etcd's enum values and the field numbers we depend on (api/etcdserverpb/rpc.proto, api/mvccpb/kv.proto). */
const ETCD_ENUMS: Record<string, Record<string, number>> = {
  'etcdserverpb.Compare.CompareResult': { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 },
  'etcdserverpb.Compare.CompareTarget': { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4 },
  'mvccpb.Event.EventType': { PUT: 0, DELETE: 1 },
};

const ETCD_FIELDS: Record<string, Record<string, number>> = {
  'mvccpb.KeyValue': { key: 1, create_revision: 2, mod_revision: 3, version: 4, value: 5, lease: 6 },
  'mvccpb.Event': { type: 1, kv: 2, prev_kv: 3 },
  'etcdserverpb.ResponseHeader': { revision: 3 },
  'etcdserverpb.RangeRequest': { key: 1, range_end: 2, limit: 3, revision: 4, count_only: 9 },
  'etcdserverpb.RangeResponse': { header: 1, kvs: 2, more: 3, count: 4 },
  'etcdserverpb.PutRequest': { key: 1, value: 2, prev_kv: 4 },
  'etcdserverpb.PutResponse': { header: 1, prev_kv: 2 },
  'etcdserverpb.DeleteRangeRequest': { key: 1, range_end: 2, prev_kv: 3 },
  'etcdserverpb.DeleteRangeResponse': { header: 1, deleted: 2, prev_kvs: 3 },
  'etcdserverpb.RequestOp': { request_range: 1, request_put: 2, request_delete_range: 3 },
  'etcdserverpb.ResponseOp': { response_range: 1, response_put: 2, response_delete_range: 3 },
  'etcdserverpb.Compare': { result: 1, target: 2, key: 3, version: 4, create_revision: 5, mod_revision: 6, range_end: 64 },
  'etcdserverpb.TxnRequest': { compare: 1, success: 2, failure: 3 },
  'etcdserverpb.TxnResponse': { header: 1, succeeded: 2, responses: 3 },
  'etcdserverpb.CompactionRequest': { revision: 1, physical: 2 },
  'etcdserverpb.WatchRequest': { create_request: 1, cancel_request: 2, progress_request: 3 },
  'etcdserverpb.WatchCreateRequest': { key: 1, range_end: 2, start_revision: 3, prev_kv: 6, watch_id: 7 },
  'etcdserverpb.WatchCancelRequest': { watch_id: 1 },
  'etcdserverpb.WatchResponse': {
    header: 1,
    watch_id: 2,
    created: 3,
    canceled: 4,
    compact_revision: 5,
    cancel_reason: 6,
    events: 11,
  },
};

function parsedRoot(): protobuf.Root {
  const root = new protobuf.Root();
  protobuf.parse(MVCC_PROTO, root, { keepCase: true });
  protobuf.parse(ETCDSERVER_PROTO, root, { keepCase: true });
  root.resolveAll();
  return root;
}

describe('etcd proto', () => {
  it('has etcd enum values, and the TypeScript unions name exactly them', () => {
    const root = parsedRoot();
    for (const [name, expected] of Object.entries(ETCD_ENUMS)) {
      assert.deepEqual({ ...root.lookupEnum(name).values }, expected, name);
      const names: readonly string[] = ENUM_NAMES[name as keyof typeof ENUM_NAMES];
      assert.deepEqual([...names], Object.keys(expected), `ENUM_NAMES of ${name}`);
    }
  });

  it('has etcd field numbers', () => {
    const root = parsedRoot();
    for (const [type, fields] of Object.entries(ETCD_FIELDS)) {
      const message = root.lookupType(type);
      for (const [field, id] of Object.entries(fields)) {
        assert.equal(message.fields[field]?.id, id, `${type}.${field}`);
      }
    }
  });

  it('serializes a compare-and-swap transaction with the enum names kept', () => {
    const txn = etcdMethod('KV.Txn');
    const bytes = txn.requestSerialize({
      compare: [{ key: Buffer.from('k'), target: 'MOD', result: 'EQUAL', mod_revision: 42 }],
      success: [{ request_put: { key: Buffer.from('k'), value: Buffer.from('v'), prev_kv: true } }],
    });
    const decoded = parsedRoot().lookupType('etcdserverpb.TxnRequest').decode(bytes).toJSON();
    assert.deepEqual(decoded['compare'], [
      { result: 'EQUAL', target: 'MOD', key: Buffer.from('k').toString('base64'), mod_revision: '42' },
    ]);
  });

  it('names the gRPC methods as etcd serves them', () => {
    assert.equal(etcdMethod('KV.Range').path, '/etcdserverpb.KV/Range');
    assert.equal(etcdMethod('KV.Txn').path, '/etcdserverpb.KV/Txn');
    assert.equal(etcdMethod('Watch.Watch').path, '/etcdserverpb.Watch/Watch');
    assert.equal(etcdMethod('Watch.Watch').requestStream, true);
    assert.equal(etcdMethod('Maintenance.Status').path, '/etcdserverpb.Maintenance/Status');
  });
});
