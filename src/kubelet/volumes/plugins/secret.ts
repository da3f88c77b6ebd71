/**
 * secret (kubernetes.io~secret): the Secret's keys as files (their decoded
 * bytes), as upstream's plugin makes its payload (pkg/volume/secret
 * MakePayload): without items every key with defaultMode; with items those
 * keys at their paths with their mode or defaultMode; a missing item key
 * fails unless the volume is optional. Upstream keeps secrets on a tmpfs;
 * here they are files under the pod's directory (no root for a mount).
 */
import type { Secret } from '../../types.js';
import type { FileProjection } from '../atomic-writer.js';
import { DEFAULT_MODE, type KeyToPath } from './config-map.js';

export const SECRET_PLUGIN = 'kubernetes.io~secret';

export function secretPayload(options: {
  readonly secret: Secret | undefined;
  readonly items: readonly KeyToPath[] | undefined;
  readonly defaultMode: number | undefined;
  readonly optional: boolean;
}): Map<string, FileProjection> {
  const defaultMode = options.defaultMode ?? DEFAULT_MODE;
  const data = options.secret?.data ?? {};
  const payload = new Map<string, FileProjection>();
  const items = options.items ?? [];
  if (items.length === 0) {
    for (const [key, value] of Object.entries(data)) payload.set(key, { data: Buffer.from(value, 'base64'), mode: defaultMode });
    return payload;
  }
  for (const item of items) {
    const value = data[item.key];
    if (value === undefined) {
      if (options.optional) continue;
      throw new Error(`references non-existent secret key: ${item.key}`);
    }
    payload.set(item.path, { data: Buffer.from(value, 'base64'), mode: item.mode ?? defaultMode });
  }
  return payload;
}
