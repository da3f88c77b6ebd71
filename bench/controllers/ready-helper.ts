/**
 * The stand-in for the scheduler and the kubelets of bench:controllers, in a
 * process of its own (as upstream's scheduler_perf marks pods itself): it
 * watches the unbound pods of one namespace, binds each to one of the bench's
 * Node objects (round robin) through pods/binding, then marks it Running and
 * Ready through pods/status. It uses k8ts's own client library.
 *
 *   node ready-helper.js KUBECONFIG NAMESPACE NODE_COUNT
 * Prints "ready-helper: watching" once its watch is open; runs until killed.
 */
import { PODS } from '../../src/client/rest/resources.js';
import { restConfigFromKubeconfig } from '../../src/client/rest/kubeconfig.js';
import { newHttpClient } from '../../src/client/rest/http-client.js';
import type { KubeObject } from '../../src/machinery/meta.js';

const [kubeconfig, namespace, nodeCountText] = process.argv.slice(2) as [string, string, string];
const nodeCount = Number(nodeCountText);
const client = newHttpClient(restConfigFromKubeconfig(kubeconfig, { qps: 100_000, burst: 100_000, userAgent: 'bench-ready-helper' }));
const pods = client.resource(PODS);
const IN_FLIGHT = 32;

let next = 0;
let running = 0;
const waiting: KubeObject[] = [];

async function markReady(pod: KubeObject): Promise<void> {
  const name = pod.metadata.name!;
  const node = `bench-node-${next++ % nodeCount}`;
  await pods.createSubresource(name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: node } }, { namespace });
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const ip = `10.${(next >> 16) & 255}.${(next >> 8) & 255}.${next & 255}`;
  await pods.patch(
    name,
    'merge',
    {
      status: {
        phase: 'Running',
        podIP: ip,
        podIPs: [{ ip }],
        startTime: now,
        conditions: [
          { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
          { type: 'Initialized', status: 'True', lastTransitionTime: now },
          { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
          { type: 'Ready', status: 'True', lastTransitionTime: now },
        ],
      },
    },
    { namespace, subresource: 'status' },
  );
}

function pump(): void {
  while (running < IN_FLIGHT && waiting.length > 0) {
    const pod = waiting.shift()!;
    running++;
    markReady(pod)
      .catch((e: unknown) => process.stderr.write(`ready-helper: ${pod.metadata.name}: ${e instanceof Error ? e.message : String(e)}\n`))
      .finally(() => {
        running--;
        pump();
      });
  }
}

const stream = pods.watch({ namespace, fieldSelector: 'spec.nodeName=' });
process.stdout.write('ready-helper: watching\n');
for await (const event of stream) {
  if (event.type === 'ADDED') {
    waiting.push(event.object);
    pump();
  }
}
