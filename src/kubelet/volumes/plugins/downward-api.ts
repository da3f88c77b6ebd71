/**
 * downwardAPI (kubernetes.io~downward-api): pod fields and container
 * resources as files, as upstream's CollectData (pkg/volume/downwardapi):
 * fieldRef takes metadata.name/namespace/uid/labels/annotations (and one
 * label or annotation by subscript); resourceFieldRef takes a named
 * container's requests or limits with a divisor, an unset limit being the
 * node's allocatable. Every item is tried; the errors are reported together.
 */
import type { DownwardAPIVolumeFile } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../../types.js';
import type { FileProjection } from '../atomic-writer.js';
import { extractFieldPathAsString } from '../pod-fields.js';
import { containerResourceValue, findContainer, withAllocatableLimits, type ResourceList } from '../resource-values.js';
import { DEFAULT_MODE } from './config-map.js';
import { aggregateError } from './aggregate-error.js';

export const DOWNWARD_API_PLUGIN = 'kubernetes.io~downward-api';

export function downwardApiPayload(options: {
  readonly pod: Pod;
  readonly items: readonly DownwardAPIVolumeFile[] | undefined;
  readonly defaultMode: number | undefined;
  readonly allocatable: ResourceList | undefined;
}): Map<string, FileProjection> {
  const { pod } = options;
  const defaultMode = options.defaultMode ?? DEFAULT_MODE;
  const payload = new Map<string, FileProjection>();
  const errors: Error[] = [];
  for (const item of options.items ?? []) {
    let value = '';
    try {
      if (item.fieldRef !== undefined) {
        value = extractFieldPathAsString(pod, item.fieldRef.fieldPath);
      } else if (item.resourceFieldRef !== undefined) {
        const container = withAllocatableLimits(findContainer(pod, item.resourceFieldRef.containerName ?? ''), options.allocatable);
        value = containerResourceValue(item.resourceFieldRef, container);
      }
    } catch (e: unknown) {
      errors.push(e instanceof Error ? e : new Error(String(e)));
    }
    payload.set(item.path, { data: Buffer.from(value, 'utf8'), mode: item.mode ?? defaultMode });
  }
  if (errors.length > 0) throw aggregateError(errors);
  return payload;
}
