import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isForbidden, StatusError } from '../../../../machinery/status.js';
import { newResourceQuota, NAME } from './resource-quota.js';
import { attributesFor, newHarness, type Harness } from './testing/admission-harness.js';
import type { ValidatingAdmissionPlugin } from '../../interfaces.js';

type Resources = Record<string, string>;

const pod = (name: string, containers: { requests?: Resources; limits?: Resources; name?: string }[] = [{}], spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    containers: containers.map((c, i) => ({ name: c.name ?? (i === 0 ? name : `c${i}`), image: 'nginx', resources: { ...(c.requests ? { requests: c.requests } : {}), ...(c.limits ? { limits: c.limits } : {}) } })),
    ...spec,
  },
});

async function refusal(work: Promise<unknown>): Promise<StatusError> {
  try {
    await work;
  } catch (e: unknown) {
    assert.ok(isForbidden(e), `expected 403, got ${String(e)}`);
    return e as StatusError;
  }
  assert.fail('expected a refusal');
}

describe('ResourceQuota admission', () => {
  let h: Harness;
  let plugin: ValidatingAdmissionPlugin;

  beforeEach(async () => {
    h = await newHarness(['default', 'other']);
    plugin = newResourceQuota(h.deps) as ValidatingAdmissionPlugin;
  });
  afterEach(() => h.stop());

  /** A quota as the controller leaves it: status.hard from spec.hard and status.used given (zero for each hard resource by default). */
  async function quota(name: string, hard: Resources, options: { used?: Resources; namespace?: string; scopes?: string[]; scopeSelector?: unknown; noStatus?: boolean } = {}): Promise<void> {
    const namespace = options.namespace ?? 'default';
    await h.store('', 'resourcequotas').create(namespace, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name },
      spec: { hard, ...(options.scopes ? { scopes: options.scopes } : {}), ...(options.scopeSelector ? { scopeSelector: options.scopeSelector } : {}) },
    });
    if (options.noStatus === true) return;
    const used = options.used ?? Object.fromEntries(Object.keys(hard).map((k) => [k, '0']));
    await h.store('', 'resourcequotas', 'status').update(namespace, name, (current) => ({ ...current!, status: { hard, used } }));
  }
  const usedOf = async (name: string, namespace = 'default'): Promise<Resources> =>
    ((await h.store('', 'resourcequotas').get(namespace, name)).status as { used?: Resources }).used ?? {};
  const podExists = async (name: string): Promise<boolean> => h.store('', 'pods').get('default', name).then(() => true, () => false);

  it('enforces a quota made after the namespace was looked up empty, once its watch has seen it', async () => {
    await h.create(plugin, 'pods', 'default', pod('free'));
    await quota('pods', { pods: '1' }, { used: { pods: '1' } });
    const deadline = Date.now() + 10_000;
    for (let n = 0; ; n++) {
      const refused = await h.create(plugin, 'pods', 'default', pod(`p${n}`)).then(() => false, (e: unknown) => isForbidden(e));
      if (refused) break;
      assert.ok(Date.now() < deadline, 'the quota never reached the plugin');
      await new Promise((resolve) => setImmediate(resolve));
    }
  });

  it('is named ResourceQuota and handles creates and updates', () => {
    assert.equal(plugin.name, NAME);
    assert.equal(NAME, 'ResourceQuota');
    assert.ok(plugin.handles('CREATE') && plugin.handles('UPDATE'));
    assert.ok(!plugin.handles('DELETE') && !plugin.handles('CONNECT'));
  });

  it('charges pods to status.used and refuses the one past hard with the upstream message, storing nothing', async () => {
    await quota('compute', { pods: '2' });
    await h.create(plugin, 'pods', 'default', pod('a'));
    await h.create(plugin, 'pods', 'default', pod('b'));
    assert.deepEqual(await usedOf('compute'), { pods: '2' });
    const e = await refusal(h.create(plugin, 'pods', 'default', pod('web')));
    assert.equal(e.message, 'pods "web" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2');
    assert.equal(e.status.reason, 'Forbidden');
    assert.equal(await podExists('web'), false);
    assert.deepEqual(await usedOf('compute'), { pods: '2' });
  });

  it('leaves other namespaces alone', async () => {
    await quota('compute', { pods: '0' }, { namespace: 'other' });
    await h.create(plugin, 'pods', 'default', pod('a'));
    assert.equal(await podExists('a'), true);
  });

  it('requires cpu and memory on every container when the quota tracks them (limits default the requests)', async () => {
    await quota('compute', { 'limits.cpu': '2', 'limits.memory': '1Gi', 'requests.cpu': '1' });
    const e = await refusal(h.create(plugin, 'pods', 'default', pod('web', [{ requests: { cpu: '100m' } }, { name: 'side', limits: { cpu: '1' } }])));
    assert.equal(e.message, 'pods "web" is forbidden: failed quota: compute: must specify limits.cpu for: web; limits.memory for: side,web');
  });

  it('sums compute usage and prints it canonically; refuses the resource that would exceed', async () => {
    await quota('compute', { 'requests.cpu': '2', 'requests.memory': '2Gi', pods: '10' });
    await h.create(plugin, 'pods', 'default', pod('a', [{ requests: { cpu: '500m', memory: '1Gi' } }, { requests: { cpu: '1', memory: '512Mi' } }]));
    assert.deepEqual(await usedOf('compute'), { pods: '1', 'requests.cpu': '1500m', 'requests.memory': '1536Mi' });
    const e = await refusal(h.create(plugin, 'pods', 'default', pod('web', [{ requests: { cpu: '600m', memory: '100Mi' } }])));
    assert.equal(e.message, 'pods "web" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=1500m, limited: requests.cpu=2');
  });

  it('refuses while status.used lacks a tracked resource (status unknown) and ignores a quota whose status.hard is not set yet', async () => {
    await quota('fresh', { pods: '1' }, { noStatus: true });
    await h.create(plugin, 'pods', 'default', pod('a'));
    await quota('half', { pods: '5', services: '1' }, { used: { services: '0' } });
    const e = await refusal(h.create(plugin, 'pods', 'default', pod('web')));
    assert.equal(e.message, 'pods "web" is forbidden: status unknown for quota: half, resources: pods');
  });

  it('matches scopes: BestEffort, NotBestEffort, Terminating, PriorityClass (scopeSelector)', async () => {
    await quota('best-effort', { pods: '0' }, { scopes: ['BestEffort'] });
    await quota('terminating', { pods: '0' }, { scopes: ['Terminating'] });
    await quota('high', { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
    const e = await refusal(h.create(plugin, 'pods', 'default', pod('be')));
    assert.match(e.message, /exceeded quota: best-effort, requested: pods=1/);
    await h.create(plugin, 'pods', 'default', pod('burstable', [{ requests: { cpu: '100m' } }]));
    const t = await refusal(h.create(plugin, 'pods', 'default', pod('job', [{ requests: { cpu: '100m' } }], { activeDeadlineSeconds: 30 })));
    assert.match(t.message, /exceeded quota: terminating/);
    const p = await refusal(h.create(plugin, 'pods', 'default', pod('vip', [{ requests: { cpu: '100m' } }], { priorityClassName: 'high' })));
    assert.match(p.message, /exceeded quota: high/);
    await h.create(plugin, 'pods', 'default', pod('low', [{ requests: { cpu: '100m' } }], { priorityClassName: 'low' }));
  });

  it('counts services, node ports and load balancers, and charges an update only what it adds', async () => {
    await quota('svc', { services: '5', 'services.nodeports': '2', 'services.loadbalancers': '0' });
    const svc = (name: string, type: string, ports: number): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec: { type, selector: { app: name }, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) },
    });
    await h.create(plugin, 'services', 'default', svc('one', 'NodePort', 1));
    assert.deepEqual(await usedOf('svc'), { services: '1', 'services.nodeports': '1', 'services.loadbalancers': '0' });
    const lb = await refusal(h.create(plugin, 'services', 'default', svc('lb', 'LoadBalancer', 1)));
    assert.equal(lb.message, 'services "lb" is forbidden: exceeded quota: svc, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0');
    const current = await h.store('', 'services').get('default', 'one');
    const spec = current.spec as { ports: { name: string; port: number; nodePort?: number }[] };
    spec.ports.push({ name: 'p1', port: 81 }, { name: 'p2', port: 82 });
    const grow = await refusal(h.update(plugin, 'services', 'default', current));
    assert.equal(grow.message, 'services "one" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=1, limited: services.nodeports=2');
    spec.ports.pop();
    await h.update(plugin, 'services', 'default', current);
    assert.deepEqual(await usedOf('svc'), { services: '1', 'services.nodeports': '2', 'services.loadbalancers': '0' });
  });

  it('counts configmaps and secrets by their legacy and count/ names, and any resource by count/<resource>.<group>', async () => {
    await quota('objects', { configmaps: '1', 'count/secrets': '1', 'count/deployments.apps': '0' });
    const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} });
    await h.create(plugin, 'configmaps', 'default', cm('a'));
    assert.match((await refusal(h.create(plugin, 'configmaps', 'default', cm('b')))).message, /^configmaps "b" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=1, limited: configmaps=1$/);
    await h.create(plugin, 'secrets', 'default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    assert.deepEqual(await usedOf('objects'), { configmaps: '1', 'count/secrets': '1', 'count/deployments.apps': '0' });
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    };
    const d = await refusal(h.create(plugin, 'deployments', 'default', deployment, { group: 'apps' }));
    assert.equal(d.message, 'deployments.apps "web" is forbidden: exceeded quota: objects, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0');
  });

  it('checks a dry run without charging it', async () => {
    await quota('compute', { pods: '1' });
    await h.create(plugin, 'pods', 'default', pod('a'), { dryRun: true });
    assert.deepEqual(await usedOf('compute'), { pods: '0' });
  });

  it('gives back what it charged to earlier quotas when a later one refuses', async () => {
    await quota('a-wide', { pods: '10' });
    await quota('b-narrow', { 'count/pods': '5' }, { used: { 'count/pods': '5' } });
    // Both are read as allowing at first only when the narrow one changes between the read and the write:
    // simulate by making the narrow quota refuse at write time through a concurrent charge.
    const status = h.store('', 'resourcequotas', 'status');
    await status.update('default', 'b-narrow', (c) => ({ ...c!, status: { hard: { 'count/pods': '5' }, used: { 'count/pods': '4' } } }));
    const racing = h.create(plugin, 'pods', 'default', pod('x'));
    const other = h.create(plugin, 'pods', 'default', pod('y'));
    const results = await Promise.allSettled([racing, other]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.deepEqual(await usedOf('a-wide'), { pods: '1' });
    assert.deepEqual(await usedOf('b-narrow'), { 'count/pods': '5' });
  });

  it('never lets concurrent creates exceed the quota', async () => {
    await quota('compute', { pods: '5' });
    const results = await Promise.allSettled(Array.from({ length: 25 }, (_, i) => h.create(plugin, 'pods', 'default', pod(`p${i}`))));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
    for (const r of results) if (r.status === 'rejected') assert.match(String(r.reason), /exceeded quota: compute/);
    assert.equal((await h.store('', 'pods').list('default')).items.length, 5);
    assert.deepEqual(await usedOf('compute'), { pods: '5' });
  });

  it('does not charge pod updates, subresources or namespaces', async () => {
    await quota('compute', { pods: '1' });
    const created = await h.create(plugin, 'pods', 'default', pod('a'));
    created.metadata.labels = { changed: 'yes' };
    await h.update(plugin, 'pods', 'default', created);
    assert.deepEqual(await usedOf('compute'), { pods: '1' });
  });
  it('refuses negative usage and an update without the previous object, and fails loudly without a resourcequotas/status store', async () => {
    await quota('compute', { 'requests.cpu': '1', services: '2' });
    const negative = pod('neg', [{ requests: { cpu: '-1' } }]);
    const e = await refusal(Promise.resolve(plugin.validate(attributesFor('CREATE', '', 'pods', 'default', negative, undefined))));
    assert.equal(e.message, 'pods "neg" is forbidden: quota usage is negative for resource(s): cpu,requests.cpu');
    const svc: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } };
    const u = await refusal(Promise.resolve(plugin.validate(attributesFor('UPDATE', '', 'services', 'default', svc, undefined))));
    assert.equal(u.message, 'services "s" is forbidden: unable to get previous usage since prior version of object was not found');
    const blind = newResourceQuota({ stores: () => undefined, signal: new AbortController().signal }) as ValidatingAdmissionPlugin;
    await assert.rejects(Promise.resolve(blind.validate(attributesFor('CREATE', '', 'pods', 'default', pod('x'), undefined))), /serves no resourcequotas\/status/);
  });
});
