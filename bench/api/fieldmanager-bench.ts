/**
 * The field manager's cost per write, in this process: what every create,
 * update and patch pays to keep metadata.managedFields (trackWrite), a
 * server-side apply of a Deployment, and the FieldsV1 codec of the entries.
 *
 * Each figure is CPU µs per operation (the best of five rounds, after a warm-up):
 *   fm_create_us        trackWrite of a create of the bench pod (bench/api/pod-template.ts)
 *   fm_update_label_us  trackWrite of an update of it that changes one label (the client sends managedFields back)
 *   fm_patch_image_us   trackWrite of a patch of it that changes the container's image (what a strategic merge patch hands over)
 *   fm_apply_deploy_us  server-side apply of a Deployment onto the one the same manager applied, its image changed
 *   fm_fieldsv1_decode_us / fm_fieldsv1_encode_us  managedFields of the created pod from and to the wire form
 *                       (encode: of a copy of the decoded sets, copy included, since a decoded set remembers its wire form)
 * Run alone: node dist/bench/api/fieldmanager-bench.js [ms per measure] [figure names…]
 */
import { fileURLToPath } from 'node:url';
import type { ResourceInfo } from '../../src/api/scheme.js';
import { BUILTIN_RESOURCES } from '../../src/api/resources.js';
import { defaultPod } from '../../src/api/core/v1/defaults.js';
import { defaultDeployment } from '../../src/api/apps/v1/defaults.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { fieldManagerFor, trackWrite } from '../../src/apiserver/fieldmanager/for-resource.js';
import { decodeManagedFields, encodeManagedFields } from '../../src/apiserver/fieldmanager/managed-fields.js';
import type { JsonValue } from '../../src/apiserver/fieldmanager/field-set.js';
import { printTable, round } from '../common/stats.js';
import { benchPod } from './pod-template.js';

type JsonObject = { [key: string]: JsonValue };

/**
 * CPU µs per call of `op` (process CPU time, so that other processes on a
 * shared machine disturb it less than wall time): after a short warm-up, the
 * best of five rounds of `ms / 5` each.
 */
function microsPerOp(op: () => unknown, ms: number): number {
  const warmUntil = performance.now() + Math.min(300, ms / 3);
  while (performance.now() < warmUntil) op();
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    let count = 0;
    const start = performance.now();
    const cpu = process.cpuUsage();
    while (performance.now() - start < ms / 5) {
      for (let i = 0; i < 20; i++) op();
      count += 20;
    }
    const used = process.cpuUsage(cpu);
    best = Math.min(best, (used.user + used.system) / count);
  }
  return best;
}

function resource(group: string, name: string): ResourceInfo {
  const r = BUILTIN_RESOURCES.find((x) => x.group === group && x.resource === name);
  if (r === undefined) throw new Error(`no built-in resource ${group}/${name}`);
  return r;
}

/** What the store adds to a created object. */
function stored(o: KubeObject, uid: string): KubeObject {
  const copy = structuredClone(o);
  Object.assign(copy.metadata as object, { uid, resourceVersion: '1000', creationTimestamp: '2026-01-01T00:00:00Z' });
  return copy;
}

function deployment(image: string): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'bench', labels: { app: 'web' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image,
              ports: [{ containerPort: 8080 }],
              env: [{ name: 'MODE', value: 'bench' }],
              resources: { requests: { cpu: '100m', memory: '64Mi' } },
            },
          ],
        },
      },
    },
  };
}

/** `only`: the names of the figures to measure (all when absent), e.g. to profile one. */
export function measureFieldManager(options: { msPerMeasure?: number; only?: readonly string[] | undefined } = {}): Record<string, number> {
  const ms = options.msPerMeasure ?? 1000;
  const pods = { resource: resource('', 'pods'), subresource: undefined, defaults: (o: KubeObject) => defaultPod(o as never) };
  const pod = benchPod('bench-0', 'bench') as unknown as KubeObject;
  const created = trackWrite(pods, undefined, pod, 'kubectl-create');
  const live = stored(created, '6f1c0b9e-0000-4000-8000-000000000001');
  if (!Array.isArray(live.metadata.managedFields) || live.metadata.managedFields.length !== 1) throw new Error('the create recorded no managedFields');

  const relabelled = structuredClone(live);
  relabelled.metadata.labels = { ...relabelled.metadata.labels, tier: 'api' };
  const reimaged = structuredClone(live) as unknown as { spec: { containers: Array<{ image: string }> } };
  reimaged.spec.containers[0]!.image = 'registry.example/web:1.2.4';
  const check = trackWrite(pods, live, reimaged as unknown as KubeObject, 'kubectl-set');
  if (check.metadata.managedFields?.length !== 2) throw new Error('the image patch was not recorded');

  const deployments = fieldManagerFor(resource('apps', 'deployments'), undefined)!;
  const first = deployments.apply(undefined, deployment('registry.example/web:1.2.3'), 'kubectl', false);
  defaultDeployment(first as never);
  const liveDeployment = stored(first as unknown as KubeObject, '6f1c0b9e-0000-4000-8000-000000000002') as unknown as JsonObject;
  const nextConfig = deployment('registry.example/web:1.2.4');

  const wire = live.metadata.managedFields as unknown;
  const decoded = decodeManagedFields(wire);

  let sink = 0;
  const count = (o: KubeObject | JsonObject): void => {
    sink += (o.metadata as { managedFields?: unknown[] }).managedFields?.length ?? 0;
  };
  const operations: Record<string, () => unknown> = {
    fm_create_us: () => count(trackWrite(pods, undefined, pod, 'kubectl-create')),
    fm_update_label_us: () => count(trackWrite(pods, live, relabelled, 'kubectl-label')),
    fm_patch_image_us: () => count(trackWrite(pods, live, reimaged as unknown as KubeObject, 'kubectl-set')),
    fm_apply_deploy_us: () => count(deployments.apply(liveDeployment, structuredClone(nextConfig), 'kubectl', false)),
    fm_fieldsv1_decode_us: () => (sink += decodeManagedFields(wire).size),
    // Sets remember their encoding: encode copies, as a write encodes the sets it changed.
    fm_fieldsv1_encode_us: () => (sink += encodeManagedFields(new Map([...decoded].map(([k, e]) => [k, { ...e, set: e.set.copy() }])))?.length ?? 0),
  };
  const figures: Record<string, number> = {};
  for (const [name, op] of Object.entries(operations)) if (options.only === undefined || options.only.includes(name)) figures[name] = microsPerOp(op, ms);
  if (sink === 0) throw new Error('nothing measured');
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, round(v, 2)]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ms = Number(process.argv[2] ?? 1000);
  const only = process.argv.slice(3);
  const figures = measureFieldManager({ msPerMeasure: ms, only: only.length > 0 ? only : undefined });
  printTable(['measure', 'µs/op'], Object.entries(figures));
}
