/**
 * Fills a namespace with bare pods (no owner, never bound) for the memory
 * measure of bench:controllers, in a process of its own: 64 creates in
 * flight over HTTP/2 with the admin certificate.
 *
 *   node pod-filler.js URL PKI_DIR NAMESPACE COUNT → prints "pod-filler: N created"
 */
import { H2Client } from '../api/h2-client.js';
import { benchPod } from '../api/pod-template.js';

const [url, pkiDir, namespace, countText] = process.argv.slice(2) as [string, string, string, string];
const count = Number(countText);
const client = new H2Client(url, pkiDir, 8);
const r = await client.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
if (r.status !== 201 && r.status !== 409) throw new Error(`create namespace ${namespace}: ${r.status} ${r.body}`);
// The default ServiceAccount that ServiceAccount admission requires of every pod (no serviceaccount controller runs here).
const sa = await client.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
if (sa.status !== 201 && sa.status !== 409) throw new Error(`create serviceaccount default in ${namespace}: ${sa.status} ${sa.body}`);
let next = 0;
await Promise.all(
  Array.from({ length: 64 }, async () => {
    for (let i = next++; i < count; i = next++) {
      const name = `fill-${i}`;
      const res = await client.request('POST', `/api/v1/namespaces/${namespace}/pods`, JSON.stringify(benchPod(name, namespace)));
      if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.body}`);
    }
  }),
);
client.close();
process.stdout.write(`pod-filler: ${count} created\n`);
