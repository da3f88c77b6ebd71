/**
 * The scheduler's own cost per pod, without an API server: the workloads of
 * bench:scheduler against the in-memory fake client, in one process, so that
 * a CPU profile (`node --cpu-prof dist/bench/scheduler/in-process.js`) shows
 * the scheduler's work and the CPU time per pod can be compared between
 * versions on a busy machine (CPU time is less noisy than wall time there).
 * Not a replacement for `npm run bench:scheduler`: no HTTP, no JSON, and the
 * fake client's own copying is counted too.
 *
 *   node dist/bench/scheduler/in-process.js [NODES] [basic,spread,antiaffinity] [PODS_SCALE]
 */
import { newInformerFactory } from '../../src/client/cache/informer-factory.js';
import { newEventRecorderFactory } from '../../src/client/record/event-recorder.js';
import { NODES, PODS } from '../../src/client/rest/resources.js';
import { newFakeClient } from '../../src/client/testing/fake-client.js';
import { newLogger } from '../../src/machinery/logger.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { defaultSchedulerConfiguration } from '../../src/scheduler/config/load.js';
import { newScheduler } from '../../src/scheduler/scheduler.js';
import { benchNode, benchNodeStatus, benchSchedulingPod, type Workload } from './workloads.js';

const nodes = Number(process.argv[2] ?? 5000);
const workloads = (process.argv[3] ?? 'basic,spread,antiaffinity').split(',') as Workload[];
const scale = Number(process.argv[4] ?? 1);
const PODS_OF: Record<string, number> = { basic: 10_000, spread: 5000, antiaffinity: 5000 };

const logger = newLogger('bench', { level: 'warn' });
const client = newFakeClient({ historyLimit: 1000 });
client.seed(
  NODES,
  Array.from({ length: nodes }, (_, i) => ({ ...benchNode(i), status: benchNodeStatus() }) as unknown as KubeObject),
);
const informers = newInformerFactory(client);
const events = newEventRecorderFactory(client, { logger });
const scheduler = newScheduler({ client, informers, events, logger, config: defaultSchedulerConfiguration() });
const controller = new AbortController();
const done = scheduler.run(controller.signal);
while (scheduler.cache.nodeCount() < nodes) await new Promise((r) => setTimeout(r, 20));

let total = 0;
for (const workload of workloads) {
  const pods = Math.round((PODS_OF[workload] ?? 1000) * scale);
  total += pods;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // In batches, as a load generator would create them, so that the watch and the queue see a stream.
  for (let i = 0; i < pods; i += 500) {
    client.seed(
      PODS,
      Array.from({ length: Math.min(500, pods - i) }, (_, j) => benchSchedulingPod(workload, i + j, workload) as KubeObject),
    );
    await new Promise((r) => setImmediate(r));
  }
  while (scheduler.cache.podCount() < total || scheduler.inFlightBindings() > 0) await new Promise((r) => setTimeout(r, 10));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const pending = scheduler.pendingPods();
  console.log(
    `${workload}: ${pods} pods in ${seconds.toFixed(2)} s = ${(pods / seconds).toFixed(1)} pods/s; cpu ${(cpuMs / pods).toFixed(3)} ms/pod; ` +
      `rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB; heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB; pending ${JSON.stringify(pending)}`,
  );
}
controller.abort();
await done;
informers.stop();
await events.shutdown();
