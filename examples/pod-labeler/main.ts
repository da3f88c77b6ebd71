/**
 * An example controller written with k8ts's client library, the way the
 * controllers of `k8ts controller-manager` are: it keeps a label on every pod
 * saying which node the pod runs on (`example.k8ts.dev/node`), so that
 * `kubectl get pods -L example.k8ts.dev/node` shows it.
 *
 * The shape is upstream's: an informer feeds keys into a work queue; workers
 * take a key, read the current state from the informer's cache, compare it
 * with what it should be and write the difference through the API server. A
 * failed write is retried with backoff by requeueing the key; nothing else
 * retries. With --leader-elect, only one of several copies acts.
 *
 *   node dist/examples/pod-labeler/main.js --kubeconfig .k8ts/admin.kubeconfig [--leader-elect]
 */
import { parseArgs } from 'node:util';
import {
  LeaderElector,
  PODS,
  RateLimitingQueue,
  isNotFound,
  newHttpClient,
  newInformerFactory,
  objectKey,
  restConfigFromKubeconfig,
  splitObjectKey,
  type Client,
  type KubeObject,
  type SharedIndexInformer,
} from 'k8ts/client';

export const NODE_LABEL = 'example.k8ts.dev/node';

type Pod = KubeObject & { spec?: { nodeName?: string } };

/** What the pod's label should be: its node's name, or no label while it is unscheduled. */
export function wantedLabel(pod: Pod): string | undefined {
  const node = pod.spec?.nodeName;
  return node === undefined || node === '' ? undefined : node;
}

/** One reconcile: bring one pod's label in line with its node. */
export async function reconcilePod(client: Client, pods: SharedIndexInformer<Pod>, key: string): Promise<void> {
  const pod = pods.indexer.get(key);
  if (pod === undefined) return; // deleted: nothing to do
  const wanted = wantedLabel(pod);
  if (pod.metadata.labels?.[NODE_LABEL] === wanted) return;
  const { namespace, name } = splitObjectKey(key);
  try {
    // A merge patch names only our label; null removes it.
    await client.resource(PODS).patch(name, 'merge', { metadata: { labels: { [NODE_LABEL]: wanted ?? null } } }, { namespace, fieldManager: 'pod-labeler' });
  } catch (e: unknown) {
    if (!isNotFound(e)) throw e; // gone meanwhile: fine
  }
}

/** Run the controller until the signal aborts. */
export async function runPodLabeler(client: Client, signal: AbortSignal, workers = 2): Promise<void> {
  const informers = newInformerFactory(client);
  const pods = informers.informerFor<Pod>(PODS);
  const queue = new RateLimitingQueue();
  pods.addEventHandler({
    onAdd: (pod) => queue.add(objectKey(pod)),
    onUpdate: (_old, pod) => queue.add(objectKey(pod)),
  });
  informers.start();
  signal.addEventListener('abort', () => {
    queue.shutDown();
    informers.stop();
  });
  await informers.waitForCacheSync(signal);
  const worker = async (): Promise<void> => {
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
      try {
        await reconcilePod(client, pods, key);
        queue.forget(key);
      } catch (e: unknown) {
        console.error(`pod-labeler: ${key}: ${e instanceof Error ? e.message : String(e)}; retrying`);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, 'leader-elect': { type: 'boolean', default: false } } });
  if (values.kubeconfig === undefined) throw new Error('--kubeconfig is required');
  const client = newHttpClient(restConfigFromKubeconfig(values.kubeconfig, { userAgent: 'pod-labeler' }));
  const stop = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop.abort());
  if (!values['leader-elect']) {
    console.log('pod-labeler: running');
    await runPodLabeler(client, stop.signal);
    return;
  }
  const elector = new LeaderElector({
    client,
    namespace: 'default',
    name: 'pod-labeler',
    callbacks: {
      onStartedLeading: (leading) => {
        console.log('pod-labeler: leading');
        void runPodLabeler(client, leading);
      },
      onStoppedLeading: () => console.log('pod-labeler: stopped leading'),
    },
  });
  await elector.run(stop.signal);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e: unknown) => {
    console.error(`pod-labeler: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
