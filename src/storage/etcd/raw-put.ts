/**
 * Plain etcd puts with no Storage semantics around them: the raw-engine
 * baseline the store benchmark compares EtcdStorage with.
 */
import { EtcdClient } from './etcd-client.js';
import { keyBytes } from './etcd-convert.js';

export interface RawEtcdPutter {
  /** One KV.Put RPC (no transaction, no precondition). */
  put(key: string, value: Uint8Array): Promise<void>;
  /** Close the channel; calls under way fail. */
  close(): void;
}

/**
 * A putter on its own gRPC channel to `endpoint` (e.g. `http://127.0.0.1:2379`).
 * The channel connects on the first put.
 *
 * @example
 *   const raw = newRawEtcdPutter(endpoint);
 *   await raw.put('/bench/a', bytes);
 *   raw.close();
 */
export function newRawEtcdPutter(endpoint: string): RawEtcdPutter {
  const client = new EtcdClient({ endpoints: [endpoint] });
  return {
    async put(key: string, value: Uint8Array): Promise<void> {
      await client.put({ key: keyBytes(key), value });
    },
    close(): void {
      client.close();
    },
  };
}
