/**
 * configMap (kubernetes.io~configmap): the ConfigMap's keys as files, as
 * upstream's plugin makes its payload (pkg/volume/configmap MakePayload):
 * without items every key of data and binaryData, each with defaultMode;
 * with items only those keys, at their paths, with their own mode or
 * defaultMode. A missing item key fails unless the volume is optional; a
 * missing optional ConfigMap gives an empty volume.
 */
import type { ConfigMap } from '../../types.js';
import type { FileProjection } from '../atomic-writer.js';

export const CONFIG_MAP_PLUGIN = 'kubernetes.io~configmap';

/** The API's default for defaultMode (0644). */
export const DEFAULT_MODE = 0o644;

export interface KeyToPath {
  readonly key: string;
  readonly path: string;
  readonly mode?: number;
}

export function configMapPayload(options: {
  readonly configMap: ConfigMap | undefined;
  readonly items: readonly KeyToPath[] | undefined;
  readonly defaultMode: number | undefined;
  readonly optional: boolean;
}): Map<string, FileProjection> {
  const { configMap, optional } = options;
  const defaultMode = options.defaultMode ?? DEFAULT_MODE;
  const data = configMap?.data ?? {};
  const binary = configMap?.binaryData ?? {};
  const payload = new Map<string, FileProjection>();
  const items = options.items ?? [];
  if (items.length === 0) {
    for (const [key, value] of Object.entries(data)) payload.set(key, { data: Buffer.from(value, 'utf8'), mode: defaultMode });
    for (const [key, value] of Object.entries(binary)) payload.set(key, { data: Buffer.from(value, 'base64'), mode: defaultMode });
    return payload;
  }
  for (const item of items) {
    const text = data[item.key];
    const bytes = binary[item.key];
    let content: Buffer;
    if (text !== undefined) content = Buffer.from(text, 'utf8');
    else if (bytes !== undefined) content = Buffer.from(bytes, 'base64');
    else if (optional) continue;
    else throw new Error(`configmap references non-existent config key: ${item.key}`);
    payload.set(item.path, { data: content, mode: item.mode ?? defaultMode });
  }
  return payload;
}
