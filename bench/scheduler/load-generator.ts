/**
 * The load generator of bench:scheduler, in a process of its own: 64 requests
 * in flight over HTTP/2 with the admin certificate.
 *
 *   node load-generator.js nodes URL PKI_DIR COUNT
 *       creates COUNT Node objects and posts a Ready status for each
 *   node load-generator.js pods URL PKI_DIR NAMESPACE WORKLOAD COUNT
 *       creates the namespace and COUNT pods of the workload
 *   node load-generator.js delete URL PKI_DIR NAMESPACE WORKLOAD COUNT
 *       deletes them again
 * Prints one line: "load-generator: N <what> in S s".
 */
import { H2Client } from '../api/h2-client.js';
import { benchNode, benchNodeStatus, benchSchedulingPod, type Workload } from './workloads.js';

const IN_FLIGHT = 64;
const [mode, url, pkiDir, ...rest] = process.argv.slice(2) as [string, string, string, ...string[]];
const client = new H2Client(url, pkiDir, 8);

/** Run job(i) for i in [0, count) with IN_FLIGHT at once. */
async function inParallel(count: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < count; i = next++) await job(i);
    }),
  );
}

async function expect(status: number[], method: string, path: string, body?: string): Promise<string> {
  const r = await client.request(method, path, body);
  if (!status.includes(r.status)) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 500)}`);
  return r.body;
}

const started = performance.now();
let what: string;
let count: number;
if (mode === 'nodes') {
  count = Number(rest[0]);
  what = 'nodes';
  await inParallel(count, async (i) => {
    const created = JSON.parse(await expect([201], 'POST', '/api/v1/nodes', JSON.stringify(benchNode(i)))) as Record<string, unknown> & { metadata: { name: string } };
    await expect([200], 'PUT', `/api/v1/nodes/${created.metadata.name}/status`, JSON.stringify({ ...created, status: benchNodeStatus() }));
  });
} else if (mode === 'pods' || mode === 'delete') {
  const [namespace, workload, countText] = rest as [string, Workload, string];
  count = Number(countText);
  what = mode === 'pods' ? `${workload} pods created` : `${workload} pods deleted`;
  if (mode === 'pods') {
    await expect([201, 409], 'POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
    // No controller manager runs here: the default ServiceAccount that ServiceAccount admission requires of every pod.
    await expect([201, 409], 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
    await inParallel(count, async (i) => void (await expect([201], 'POST', `/api/v1/namespaces/${namespace}/pods`, JSON.stringify(benchSchedulingPod(workload, i, namespace)))));
  } else {
    await inParallel(count, async (i) => void (await expect([200, 202, 404], 'DELETE', `/api/v1/namespaces/${namespace}/pods/${workload}-${i}`)));
  }
} else {
  throw new Error(`unknown mode "${mode}": nodes, pods or delete`);
}
const seconds = (performance.now() - started) / 1000;
client.close();
process.stdout.write(`load-generator: ${count} ${what} in ${seconds.toFixed(3)} s\n`);
