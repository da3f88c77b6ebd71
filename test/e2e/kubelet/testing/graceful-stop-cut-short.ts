/**
 * One scenario for every runtime (resilience.test.ts on the process runtime,
 * kubelet-cri.test.ts on containerd): a graceful stop cut short. Two pods
 * whose container ignores SIGTERM ask for a 600 s grace period and are
 * deleted; once the kubelet is stopping them (their Killing events) and
 * SIGTERM has not ended them, one is deleted again with --grace-period=1 and
 * the other with --grace-period=0 --force. Both containers must end far
 * sooner than 600 s (upstream's kubelet shortens a pod's graceful stop the
 * same way), and the first pod is then deleted by the kubelet.
 */
import assert from 'node:assert/strict';
import type { ResourceClient } from '../../../../src/client/rest/interface.js';
import type { Pod } from '../../../../src/kubelet/types.js';
import type { Kubectl } from '../../testing/kubectl.js';

export interface GracefulStopScenario {
  readonly pods: ResourceClient<Pod>;
  readonly kubectl: Kubectl;
  /** The test file's wait on a condition (with its own failure context). */
  until(description: string, check: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void>;
  /** For a running pod: a check of whether its container still runs on the node (a process, a containerd container). */
  containerRunning(pod: Pod): Promise<() => Promise<boolean>>;
}

/** The pods the scenario made, by name, as they were while running. */
export type StubbornPods = ReadonlyMap<string, Pod>;

export const SHORTER = 'stubborn-shorter';
export const FORCED = 'stubborn-forced';

const mainRunning = (pod: Pod | undefined): boolean => pod?.status?.containerStatuses?.find((s) => s.name === 'main')?.state?.running !== undefined;

/** The pod, or undefined once the API has none of that name. */
export async function podIfExists(pods: ResourceClient<Pod>, name: string, namespace = 'default'): Promise<Pod | undefined> {
  try {
    return await pods.get(name, { namespace });
  } catch (e: unknown) {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  }
}

export async function cutGracefulStopShort(s: GracefulStopScenario): Promise<StubbornPods> {
  const names = [SHORTER, FORCED];
  // sh ignores SIGTERM, and so do the sleeps it starts (an ignored signal stays ignored across exec): only SIGKILL ends it.
  for (const name of names) {
    await s.pods.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { terminationGracePeriodSeconds: 600, containers: [{ name: 'main', image: 'busybox:1.35', command: ['sh', '-c', "trap '' TERM; while true; do sleep 0.1; done"] }] },
    });
  }
  for (const name of names) await s.until(`${name} running`, async () => mainRunning(await podIfExists(s.pods, name)));
  const running = new Map<string, Pod>();
  const stillRunning = new Map<string, () => Promise<boolean>>();
  for (const name of names) {
    const pod = await s.pods.get(name, { namespace: 'default' });
    running.set(name, pod);
    stillRunning.set(name, await s.containerRunning(pod));
  }

  await s.kubectl.ok('delete', 'pod', ...names, '--wait=false');
  const killing = async (name: string): Promise<boolean> => {
    const events = JSON.parse(await s.kubectl.ok('get', 'events', '-o', 'json')) as { items: { reason?: string; involvedObject?: { name?: string } }[] };
    return events.items.some((e) => e.reason === 'Killing' && e.involvedObject?.name === name);
  };
  for (const name of names) await s.until(`the kubelet stopping ${name} (its Killing event)`, () => killing(name));
  for (const name of names) assert.ok(await stillRunning.get(name)!(), `SIGTERM did not end ${name}`);

  await s.kubectl.ok('delete', 'pod', SHORTER, '--grace-period=1', '--wait=false');
  await s.kubectl.ok('delete', 'pod', FORCED, '--grace-period=0', '--force');
  assert.equal(await podIfExists(s.pods, FORCED), undefined, 'a forced delete removes the pod from the API at once');
  // Far sooner than the 600 s the pods asked for.
  for (const name of names) await s.until(`${name}'s container killed`, async () => !(await stillRunning.get(name)!()), 30_000);
  await s.until(`${SHORTER} deleted by the kubelet once stopped`, async () => (await podIfExists(s.pods, SHORTER)) === undefined, 30_000);
  return running;
}
