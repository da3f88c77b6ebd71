/**
 * Reads one figure from etcd's own Prometheus endpoint (`/metrics`, served on
 * the client URL), e.g. `etcd_debugging_mvcc_watcher_total`: the number of
 * watchers etcd runs, whoever asked for them. Tests and benchmarks use it to
 * count storage watches without trusting a counter of ours.
 *
 * @example
 *   await etcdMetric(etcd.endpoint, 'etcd_debugging_mvcc_watcher_total') // → 1
 */
export async function etcdMetric(endpoint: string, name: string): Promise<number> {
  const response = await fetch(`${endpoint}/metrics`);
  if (!response.ok) throw new Error(`etcd /metrics answered ${response.status}`);
  const text = await response.text();
  for (const line of text.split('\n')) {
    // An unlabelled sample: `name value`.
    if (line.startsWith(`${name} `)) return Number(line.slice(name.length + 1));
  }
  throw new Error(`etcd /metrics has no sample named ${name}`);
}
