import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { isAlreadyExists, isConflict, isForbidden, isInvalid, isNotFound, isResourceExpired, serviceUnavailable, StatusError } from '../../machinery/status.js';
import type { WatchEvent, WatchStream } from '../rest/interface.js';
import { DEPLOYMENTS, NAMESPACES, NODES, PODS, SERVICE_ACCOUNTS } from '../rest/resources.js';
import { newFakeClient } from './fake-client.js';

const pod = (name: string, extra: Partial<KubeObject> & { labels?: Record<string, string>; namespace?: string } = {}): KubeObject => {
  const { labels, namespace, ...rest } = extra;
  return { metadata: { name, namespace: namespace ?? 'default', ...(labels !== undefined ? { labels } : {}) }, spec: { containers: [{ name: 'c', image: 'i' }] }, ...rest };
};

/** Read n events of a watch. */
async function take<T>(stream: WatchStream<T>, n: number): Promise<WatchEvent<T>[]> {
  const out: WatchEvent<T>[] = [];
  if (n === 0) return out;
  for await (const event of stream) {
    out.push(event);
    if (out.length === n) break;
  }
  return out;
}

const summary = (events: readonly WatchEvent<KubeObject>[]): string[] => events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}@${e.object.metadata.resourceVersion ?? ''}`);

describe('fake client', () => {
  describe('create and get', () => {
    it('fills uid, creationTimestamp, resourceVersion, generation, apiVersion and kind', async () => {
      const client = newFakeClient({ now: () => new Date('2026-01-02T03:04:05.678Z') });
      const created = await client.resource(PODS).create(pod('a'));
      assert.match(created.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(created.metadata.creationTimestamp, '2026-01-02T03:04:05Z');
      assert.equal(created.metadata.resourceVersion, '1');
      assert.equal(created.metadata.generation, 1);
      assert.equal(created.apiVersion, 'v1');
      assert.equal(created.kind, 'Pod');
      const got = await client.resource(PODS).get('a', { namespace: 'default' });
      assert.deepEqual(got, created);
      got.metadata.labels = { changed: 'yes' };
      assert.equal((await client.resource(PODS).get('a', { namespace: 'default' })).metadata.labels, undefined, 'hands out copies');
      const cm = await client.resource({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true }).create({ metadata: { name: 'c', namespace: 'x' }, data: {} });
      assert.equal(cm.metadata.generation, undefined, 'no spec, no generation');
    });

    it('names from generateName with 5 random lower-case alphanumerics', async () => {
      const client = newFakeClient();
      const created = await client.resource(PODS).create({ metadata: { generateName: 'web-', namespace: 'default' } });
      assert.match(created.metadata.name ?? '', /^web-[a-z0-9]{5}$/);
    });

    it('AlreadyExists, NotFound, and a namespace is required for a namespaced object', async () => {
      const client = newFakeClient();
      await client.resource(PODS).create(pod('a'));
      await assert.rejects(client.resource(PODS).create(pod('a')), (e) => isAlreadyExists(e) && (e as Error).message === 'pods "a" already exists');
      await assert.rejects(client.resource(PODS).get('zz', { namespace: 'default' }), (e) => isNotFound(e) && (e as Error).message === 'pods "zz" not found');
      await assert.rejects(client.resource(PODS).create({ metadata: { name: 'x' } }), /needs a namespace/);
      await assert.rejects(client.resource(PODS).create(pod('y', { namespace: 'a' }), { namespace: 'b' }), /does not match/);
      await assert.rejects(client.resource(PODS).create({ metadata: { namespace: 'a' } }), /name or generateName is required/);
      const node = await client.resource(NODES).create({ metadata: { name: 'n1', namespace: 'ignored' } });
      assert.equal(node.metadata.namespace, undefined);
    });

    it('dryRun stores nothing', async () => {
      const client = newFakeClient();
      await client.resource(PODS).create(pod('a'), { dryRun: true });
      await assert.rejects(client.resource(PODS).get('a', { namespace: 'default' }), isNotFound);
    });
  });

  describe('list', () => {
    it('filters by namespace, label selector and field selector, and carries the resourceVersion', async () => {
      const client = newFakeClient();
      client.seed(PODS, [
        pod('a', { labels: { app: 'web' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } }),
        pod('b', { labels: { app: 'db' }, spec: { nodeName: 'n2' }, status: { phase: 'Pending' } }),
        pod('c', { namespace: 'other', labels: { app: 'web' }, status: { phase: 'Running' } }),
      ]);
      const names = async (options: Parameters<ReturnType<typeof client.resource>['list']>[0]): Promise<string[]> =>
        (await client.resource(PODS).list(options)).items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
      assert.deepEqual(await names({}), ['default/a', 'default/b', 'other/c']);
      assert.deepEqual(await names({ namespace: 'default' }), ['default/a', 'default/b']);
      assert.deepEqual(await names({ labelSelector: 'app=web' }), ['default/a', 'other/c']);
      assert.deepEqual(await names({ labelSelector: 'app in (db),!missing' }), ['default/b']);
      assert.deepEqual(await names({ fieldSelector: 'spec.nodeName=n1' }), ['default/a']);
      assert.deepEqual(await names({ fieldSelector: 'status.phase!=Running' }), ['default/b']);
      assert.deepEqual(await names({ fieldSelector: 'metadata.name=c,metadata.namespace=other' }), ['other/c']);
      assert.deepEqual(await names({ fieldSelector: 'spec.nodeName=' }), ['other/c']);
      const list = await client.resource(PODS).list();
      assert.equal(list.metadata.resourceVersion, '3');
      assert.equal(list.kind, 'PodList');
      await assert.rejects(client.resource(PODS).list({ labelSelector: 'a in b' }), (e) => e instanceof StatusError && e.code === 400);
    });

    it('pages with limit and continue', async () => {
      const client = newFakeClient();
      client.seed(PODS, [pod('a'), pod('b'), pod('c')]);
      const first = await client.resource(PODS).list({ limit: 2 });
      assert.deepEqual(first.items.map((p) => p.metadata.name), ['a', 'b']);
      const rest = await client.resource(PODS).list({ limit: 2, continue: first.metadata.continue ?? '' });
      assert.deepEqual(rest.items.map((p) => p.metadata.name), ['c']);
      assert.equal(rest.metadata.continue, undefined);
    });
  });

  describe('update', () => {
    it('conflicts on a stale resourceVersion and bumps generation only when the spec changes', async () => {
      const client = newFakeClient();
      const deployments = client.resource(DEPLOYMENTS);
      const d = await deployments.create({ metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1 } });
      const labelled = await deployments.update({ ...d, metadata: { ...d.metadata, labels: { a: 'b' } } });
      assert.equal(labelled.metadata.generation, 1);
      assert.notEqual(labelled.metadata.resourceVersion, d.metadata.resourceVersion);
      await assert.rejects(deployments.update({ ...d, spec: { replicas: 2 } }), (e) => isConflict(e) && /Operation cannot be fulfilled on deployments.apps "d"/.test((e as Error).message));
      const scaled = await deployments.update({ ...labelled, spec: { replicas: 2 } });
      assert.equal(scaled.metadata.generation, 2);
      const unconditional = await deployments.update({ metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 3 } });
      assert.equal(unconditional.metadata.generation, 3);
      assert.equal(unconditional.metadata.uid, d.metadata.uid);
      assert.equal(unconditional.metadata.creationTimestamp, d.metadata.creationTimestamp);
      await assert.rejects(deployments.update({ metadata: { name: 'nope', namespace: 'default' }, spec: {} }), isNotFound);
    });

    it('keeps the status on a main update; updateStatus changes only the status', async () => {
      const client = newFakeClient();
      const deployments = client.resource(DEPLOYMENTS);
      const d = await deployments.create({ metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1 } });
      const withStatus = await deployments.updateStatus({ ...d, metadata: { ...d.metadata, labels: { ignored: 'x' } }, spec: { replicas: 9 }, status: { replicas: 1 } });
      assert.deepEqual(withStatus.status, { replicas: 1 });
      assert.deepEqual(withStatus.spec, { replicas: 1 });
      assert.equal(withStatus.metadata.labels, undefined);
      const updated = await deployments.update({ ...withStatus, status: { replicas: 5 } });
      assert.deepEqual(updated.status, { replicas: 1 });
      await assert.rejects(deployments.updateStatus({ ...d, status: {} }), isConflict);
    });

    it('a no-op update writes nothing (same resourceVersion, no watch event)', async () => {
      const client = newFakeClient();
      const d = await client.resource(DEPLOYMENTS).create({ metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1 } });
      const same = await client.resource(DEPLOYMENTS).update(d);
      assert.equal(same.metadata.resourceVersion, d.metadata.resourceVersion);
      assert.equal(client.resourceVersion, d.metadata.resourceVersion);
    });
  });

  describe('patch', () => {
    it('applies merge, json and strategic patches, and honours a resourceVersion in the patch', async () => {
      const client = newFakeClient();
      const deployments = client.resource(DEPLOYMENTS);
      const d = await deployments.create({ metadata: { name: 'd', namespace: 'default', labels: { a: '1', b: '2' } }, spec: { replicas: 1, paused: true } });
      const merged = await deployments.patch('d', 'merge', { metadata: { labels: { b: null, c: '3' } }, spec: { paused: null } }, { namespace: 'default' });
      assert.deepEqual(merged.metadata.labels, { a: '1', c: '3' });
      assert.deepEqual(merged.spec, { replicas: 1 });
      assert.equal(merged.metadata.generation, 2);
      const jsonPatched = await deployments.patch('d', 'json', [{ op: 'replace', path: '/spec/replicas', value: 4 }], { namespace: 'default' });
      assert.deepEqual(jsonPatched.spec, { replicas: 4 });
      const strategic = await deployments.patch('d', 'strategic', { spec: { replicas: 5 } }, { namespace: 'default' });
      assert.deepEqual(strategic.spec, { replicas: 5 });
      await assert.rejects(deployments.patch('d', 'json', [{ op: 'test', path: '/spec/replicas', value: 1 }], { namespace: 'default' }), isInvalid);
      await assert.rejects(deployments.patch('d', 'merge', { metadata: { resourceVersion: d.metadata.resourceVersion } }, { namespace: 'default' }), isConflict);
      await assert.rejects(deployments.patch('nope', 'merge', {}, { namespace: 'default' }), isNotFound);
      const status = await deployments.patch('d', 'merge', { status: { replicas: 2 }, spec: { replicas: 100 } }, { namespace: 'default', subresource: 'status' });
      assert.deepEqual(status.status, { replicas: 2 });
      assert.deepEqual(status.spec, { replicas: 5 });
    });

    it('merges the common lists of a strategic patch by their merge keys, and reports bad directives', async () => {
      const client = newFakeClient();
      const deployments = client.resource(DEPLOYMENTS);
      await deployments.create({
        metadata: { name: 'd', namespace: 'default', finalizers: ['a'] },
        spec: { template: { spec: { containers: [{ name: 'web', image: 'v1', ports: [{ containerPort: 80, name: 'http' }] }, { name: 'side', image: 's1' }] } } },
      });
      const patched = await deployments.patch(
        'd',
        'strategic',
        {
          metadata: { finalizers: ['b'] },
          spec: { template: { spec: { containers: [{ name: 'web', image: 'v2', ports: [{ containerPort: 443 }] }, { name: 'side', $patch: 'delete' }] } } },
        },
        { namespace: 'default' },
      );
      assert.deepEqual(patched.metadata.finalizers, ['b', 'a'], 'the patch items first, as upstream orders a merged list');
      assert.deepEqual((patched.spec as { template: { spec: unknown } }).template.spec, {
        containers: [{ name: 'web', image: 'v2', ports: [{ containerPort: 443 }, { containerPort: 80, name: 'http' }] }],
      });
      await assert.rejects(deployments.patch('d', 'strategic', { spec: { $patch: 'explode' } }, { namespace: 'default' }), (e) => e instanceof StatusError && e.code >= 400 && e.code < 500 && /unknown patch type: explode/.test(e.message));
    });

    it('creates the object on an apply patch when it is absent', async () => {
      const client = newFakeClient();
      const created = await client.resource(DEPLOYMENTS).patch('d', 'apply', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1 } }, { namespace: 'default' });
      assert.equal(created.metadata.namespace, 'default');
      assert.equal(created.metadata.generation, 1);
    });
  });

  describe('delete', () => {
    it('removes an object without finalizers at once', async () => {
      const client = newFakeClient();
      await client.resource(PODS).create(pod('a'));
      assert.equal(await client.resource(PODS).delete('a', { namespace: 'default' }), undefined);
      await assert.rejects(client.resource(PODS).get('a', { namespace: 'default' }), isNotFound);
      await assert.rejects(client.resource(PODS).delete('a', { namespace: 'default' }), isNotFound);
    });

    it('with finalizers marks the object; removing the last finalizer deletes it; no finalizer can be added meanwhile', async () => {
      const client = newFakeClient();
      const deployments = client.resource(DEPLOYMENTS);
      await deployments.create({ metadata: { name: 'd', namespace: 'default', finalizers: ['example.com/x'] }, spec: {} });
      const marked = await deployments.delete('d', { namespace: 'default' });
      assert.ok(marked?.metadata.deletionTimestamp);
      assert.equal(marked.metadata.deletionGracePeriodSeconds, 0);
      assert.equal(marked.metadata.generation, 2);
      await assert.rejects(deployments.update({ ...marked, metadata: { ...marked.metadata, finalizers: ['example.com/x', 'example.com/y'] } }), isInvalid);
      await deployments.update({ ...marked, metadata: { ...marked.metadata, finalizers: [] } });
      await assert.rejects(deployments.get('d', { namespace: 'default' }), isNotFound);
    });

    it('Foreground and Orphan add their finalizers; Background removes them', async () => {
      const client = newFakeClient();
      const deployments = client.resource(DEPLOYMENTS);
      await deployments.create({ metadata: { name: 'f', namespace: 'default' }, spec: {} });
      await deployments.create({ metadata: { name: 'o', namespace: 'default' }, spec: {} });
      const f = await deployments.delete('f', { namespace: 'default', propagationPolicy: 'Foreground' });
      assert.deepEqual(f?.metadata.finalizers, ['foregroundDeletion']);
      const o = await deployments.delete('o', { namespace: 'default', propagationPolicy: 'Orphan' });
      assert.deepEqual(o?.metadata.finalizers, ['orphan']);
      assert.equal(await deployments.delete('o', { namespace: 'default', propagationPolicy: 'Background' }), undefined);
    });

    it('checks preconditions', async () => {
      const client = newFakeClient();
      await client.resource(PODS).create(pod('a'));
      await assert.rejects(client.resource(PODS).delete('a', { namespace: 'default', preconditions: { uid: 'other' } }), (e) => isConflict(e) && /Precondition failed: UID in precondition: other/.test((e as Error).message));
      await assert.rejects(client.resource(PODS).delete('a', { namespace: 'default', preconditions: { resourceVersion: '0' } }), isConflict);
    });

    it('deletes a scheduled pod gracefully; a grace period of 0 then removes it', async () => {
      const client = newFakeClient();
      const pods = client.resource(PODS);
      await pods.create(pod('running', { spec: { nodeName: 'n1', terminationGracePeriodSeconds: 10 } }));
      await pods.create(pod('unscheduled'));
      assert.equal(await pods.delete('unscheduled', { namespace: 'default' }), undefined, 'a pod on no node goes at once');
      const terminating = await pods.delete('running', { namespace: 'default' });
      assert.equal(terminating?.metadata.deletionGracePeriodSeconds, 10);
      assert.ok(terminating?.metadata.deletionTimestamp);
      assert.equal(await pods.delete('running', { namespace: 'default', gracePeriodSeconds: 0 }), undefined);
    });

    it('a namespace stays Terminating until finalize empties spec.finalizers; no new content meanwhile', async () => {
      const client = newFakeClient();
      const namespaces = client.resource(NAMESPACES);
      const ns = await namespaces.create({ metadata: { name: 'ns1' } });
      assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
      assert.deepEqual(ns.status, { phase: 'Active' });
      const terminating = await namespaces.delete('ns1');
      assert.deepEqual(terminating?.status, { phase: 'Terminating' });
      await assert.rejects(client.resource(PODS).create(pod('p', { namespace: 'ns1' })), (e) => isForbidden(e) && /because it is being terminated/.test((e as Error).message));
      await namespaces.updateSubresource('ns1', 'finalize', { ...terminating, spec: { finalizers: [] } });
      await assert.rejects(namespaces.get('ns1'), isNotFound);
    });
  });

  describe('subresources', () => {
    it('binds a pod once', async () => {
      const client = newFakeClient();
      await client.resource(PODS).create(pod('a'));
      await client.resource(PODS).createSubresource('a', 'binding', { target: { kind: 'Node', name: 'n1' } }, { namespace: 'default' });
      const bound = await client.resource(PODS).get('a', { namespace: 'default' });
      assert.equal((bound.spec as { nodeName?: string }).nodeName, 'n1');
      assert.deepEqual((bound.status as { conditions: { type: string; status: string }[] }).conditions.map((c) => `${c.type}=${c.status}`), ['PodScheduled=True']);
      await assert.rejects(client.resource(PODS).createSubresource('a', 'binding', { target: { name: 'n2' } }, { namespace: 'default' }), (e) => isConflict(e) && /already assigned to node "n1"/.test((e as Error).message));
    });

    it('evicts a pod (a delete)', async () => {
      const client = newFakeClient();
      await client.resource(PODS).create(pod('a'));
      await client.resource(PODS).createSubresource('a', 'eviction', { metadata: { name: 'a', namespace: 'default' } }, { namespace: 'default' });
      await assert.rejects(client.resource(PODS).get('a', { namespace: 'default' }), isNotFound);
      assert.deepEqual(client.actions.map((a) => `${a.verb} ${a.resource}/${a.subresource ?? ''}`), ['create pods/', 'create pods/eviction']);
    });

    it('gets and updates scale', async () => {
      const client = newFakeClient();
      const deployments = client.resource(DEPLOYMENTS);
      await deployments.create({ metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } } }, status: { replicas: 2 } });
      const scale = await deployments.getSubresource<KubeObject>('d', 'scale', { namespace: 'default' });
      assert.deepEqual(scale.spec, { replicas: 2 });
      assert.deepEqual(scale.status, { replicas: 2, selector: 'app=web' });
      const updated = await deployments.updateSubresource<KubeObject>('d', 'scale', { ...scale, spec: { replicas: 5 } }, { namespace: 'default' });
      assert.deepEqual(updated.spec, { replicas: 5 });
      assert.equal(((await deployments.get('d', { namespace: 'default' })).spec as { replicas: number }).replicas, 5);
      await assert.rejects(deployments.updateSubresource('d', 'scale', scale, { namespace: 'default' }), isConflict);
      const patched = await deployments.patch('d', 'merge', { spec: { replicas: 1 } }, { namespace: 'default', subresource: 'scale' });
      assert.equal(patched.kind, 'Scale');
    });

    it('issues service account tokens', async () => {
      const client = newFakeClient();
      await client.resource(SERVICE_ACCOUNTS).create({ metadata: { name: 'default', namespace: 'ns' } });
      const token = await client.resource(SERVICE_ACCOUNTS).createSubresource<KubeObject>('default', 'token', { spec: { audiences: ['x'] } }, { namespace: 'ns' });
      assert.equal(token.kind, 'TokenRequest');
      assert.match(String((token.status as { token: string }).token), /fake-token/);
    });
  });

  describe('watch', () => {
    it('replays from a resourceVersion, then streams live changes, with selector transitions as ADDED/DELETED', async () => {
      const client = newFakeClient();
      const pods = client.resource(PODS);
      await pods.create(pod('a', { labels: { app: 'web' } }));
      const from = client.resourceVersion;
      await pods.create(pod('b', { labels: { app: 'web' } }));
      const watch = pods.watch({ resourceVersion: from, labelSelector: 'app=web' });
      const events = take(watch, 4);
      const b = await pods.get('b', { namespace: 'default' });
      await pods.update({ ...b, metadata: { ...b.metadata, labels: { app: 'db' } } });
      await pods.create(pod('c', { labels: { app: 'db' } }));
      const c = await pods.get('c', { namespace: 'default' });
      await pods.update({ ...c, metadata: { ...c.metadata, labels: { app: 'web' } } });
      await pods.delete('a', { namespace: 'default' });
      assert.deepEqual(summary(await events), ['ADDED b@2', 'DELETED b@3', 'ADDED c@5', 'DELETED a@6']);
    });

    it('without a resourceVersion starts with the current objects as ADDED', async () => {
      const client = newFakeClient();
      client.seed(PODS, [pod('a'), pod('b', { namespace: 'x' })]);
      assert.deepEqual(summary(await take(client.resource(PODS).watch({ namespace: 'x' }), 1)), ['ADDED b@2']);
    });

    it('fails with 410 Expired from a compacted resourceVersion', async () => {
      const client = newFakeClient();
      client.seed(PODS, [pod('a'), pod('b')]);
      client.compact();
      await assert.rejects(take(client.resource(PODS).watch({ resourceVersion: '1' }), 1), (e) => isResourceExpired(e) && /too old resource version: 1 \(2\)/.test((e as Error).message));
      const historyLimited = newFakeClient({ historyLimit: 1 });
      historyLimited.seed(PODS, [pod('a'), pod('b'), pod('c')]);
      await assert.rejects(take(historyLimited.resource(PODS).watch({ resourceVersion: '1' }), 1), isResourceExpired);
      assert.deepEqual(summary(await take(historyLimited.resource(PODS).watch({ resourceVersion: '2' }), 1)), ['ADDED c@3']);
    });

    it('sends bookmarks only to watches that allow them, and ends on cancel or closeWatches', async () => {
      const client = newFakeClient();
      client.seed(PODS, [pod('a')]);
      const withBookmarks = client.resource(PODS).watch({ resourceVersion: '1', allowWatchBookmarks: true });
      const without = client.resource(PODS).watch({ resourceVersion: '1' });
      assert.equal(client.openWatches, 2);
      client.bookmark();
      const [bookmark] = await take(withBookmarks, 1);
      assert.equal(bookmark?.type, 'BOOKMARK');
      assert.equal(bookmark?.object.metadata.resourceVersion, '1');
      without.cancel();
      assert.equal(client.openWatches, 1);
      client.closeWatches();
      assert.deepEqual(await take(withBookmarks, 5), []);
      assert.equal(client.openWatches, 0);
    });
  });

  describe('test conveniences', () => {
    it('logs every write with verb, resource, namespace, name and subresource, failed ones with their error', async () => {
      const client = newFakeClient();
      const pods = client.resource(PODS);
      const a = await pods.create(pod('a'));
      await pods.updateStatus({ ...a, status: { phase: 'Running' } });
      await pods.patch('a', 'merge', { metadata: { labels: { x: 'y' } } }, { namespace: 'default' });
      await assert.rejects(pods.create(pod('a')));
      await pods.delete('a', { namespace: 'default' });
      await pods.get('b', { namespace: 'default' }).catch(() => undefined);
      assert.deepEqual(
        client.actions.map((x) => [x.verb, x.resource, x.namespace, x.name, x.subresource ?? '', x.error === undefined ? 'ok' : 'failed'].join(' ')),
        ['create pods default a  ok', 'update pods default a status ok', 'patch pods default a  ok', 'create pods default a  failed', 'delete pods default a  ok'],
      );
      assert.equal(client.actionsOf('create', 'pods').length, 2);
      assert.equal(client.actionsOf('update', 'pods/status').length, 1);
      client.clearActions();
      assert.equal(client.actions.length, 0);
    });

    it('injects errors for a number of calls of a verb and resource', async () => {
      const client = newFakeClient();
      client.injectError('create', 'pods', serviceUnavailable('try later'), 2);
      await assert.rejects(client.resource(PODS).create(pod('a')), /try later/);
      await assert.rejects(client.resource(PODS).create(pod('a')), /try later/);
      await client.resource(PODS).create(pod('a'));
      await client.resource(NODES).create({ metadata: { name: 'n' } });
      client.injectError('update', 'pods/status', new Error('status down'));
      const a = await client.resource(PODS).update({ ...(await client.resource(PODS).get('a', { namespace: 'default' })), metadata: { name: 'a', namespace: 'default', labels: { l: '1' } } });
      await assert.rejects(client.resource(PODS).updateStatus(a), /status down/);
      client.injectError('watch', '*', serviceUnavailable('no watch'));
      await assert.rejects(take(client.resource(PODS).watch(), 1), /no watch/);
      client.injectError('*', 'pods', new Error('anything'));
      await assert.rejects(client.resource(PODS).list(), /anything/);
    });

    it('seed stores objects as given (status, uid) without logging actions', async () => {
      const client = newFakeClient();
      const [seeded] = client.seed(PODS, [pod('a', { status: { phase: 'Running' }, metadata: { name: 'a', namespace: 'default', uid: 'u-1' } })]);
      assert.equal(seeded?.metadata.uid, 'u-1');
      assert.deepEqual((await client.resource(PODS).get('a', { namespace: 'default' })).status, { phase: 'Running' });
      assert.equal(client.actions.length, 0);
    });
  });
});
