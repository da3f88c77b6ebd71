/**
 * Strategic merge patch over plain HTTP: what kubectl cannot send or does not
 * show (field validation of the patch body, the Status objects of patch
 * errors, dry run, subresources).
 */
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { ApiClient, serverUrlOf, type ApiResponse } from '../testing/api-client.js';

const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'api' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'api' } },
    template: {
      metadata: { labels: { app: 'api' } },
      spec: { containers: [{ name: 'main', image: 'nginx:1', env: [{ name: 'A', value: '1' }] }] },
    },
  },
};

interface Status {
  kind: string;
  code: number;
  reason?: string;
  message: string;
}

describe('strategic merge patch over HTTP', () => {
  let cluster: TestCluster;
  let api: ApiClient;

  const patch = (path: string, body: string, query = ''): Promise<ApiResponse> => api.request('PATCH', `${path}${query}`, { body, headers: SMP });
  const status = (r: ApiResponse, code: number): Status => {
    assert.equal(r.status, code, r.text);
    const s = r.json<Status>();
    assert.equal(s.kind, 'Status');
    assert.equal(s.code, code);
    return s;
  };

  before(async () => {
    cluster = await startLeanCluster('smp-api');
    api = new ApiClient(serverUrlOf(cluster.kubeconfig), join(dirname(cluster.kubeconfig), 'pki'));
    const created = await api.request('POST', DEPLOYMENTS, { body: JSON.stringify(deployment) });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
  });

  it('field validation of the patch body and the patched object: Strict fails, Warn warns, Ignore says nothing', async () => {
    const body = '{"spec":{"paused":true,"paused":false,"foo":1}}';
    const strict = status(await patch(`${DEPLOYMENTS}/api`, body, '?fieldValidation=Strict'), 422);
    assert.equal(strict.reason, 'Invalid');
    assert.equal(strict.message, ' "" is invalid: patch: Invalid value: "map[spec:map[foo:1 paused:false]]": strict decoding error: duplicate field "spec.paused", unknown field "spec.foo"');

    const warn = await patch(`${DEPLOYMENTS}/api`, body);
    assert.equal(warn.status, 200, warn.text);
    assert.match(String(warn.headers.warning), /299 - "duplicate field \\"spec\.paused\\""/);
    assert.match(String(warn.headers.warning), /299 - "unknown field \\"spec\.foo\\""/);
    // The last (false) wins; paused is omitempty, so upstream writes no false.
    assert.equal(warn.json<{ spec: { paused?: boolean } }>().spec.paused, undefined, 'of duplicates the last wins');

    const ignore = await patch(`${DEPLOYMENTS}/api`, '{"spec":{"paused":true,"foo":1}}', '?fieldValidation=Ignore');
    assert.equal(ignore.status, 200, ignore.text);
    assert.equal(ignore.headers.warning, undefined);
    assert.equal(ignore.json<{ spec: Record<string, unknown> }>().spec.foo, undefined, 'unknown fields are dropped');
  });

  it('patch errors are Status objects with upstream codes and texts', async () => {
    const noKey = status(await patch(`${DEPLOYMENTS}/api`, '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}'), 500);
    assert.equal(noKey.reason ?? '', '');
    assert.equal(noKey.message, 'map: map[image:x] does not contain declared merge key: name');
    const badOrder = status(await patch(`${DEPLOYMENTS}/api`, '{"spec":{"template":{"spec":{"$setElementOrder":[]}}}}'), 400);
    assert.equal(badOrder.reason, 'BadRequest');
    assert.equal(badOrder.message, 'invalid patch format of setElementOrder list');
    const notObject = status(await patch(`${DEPLOYMENTS}/api`, '["x"]'), 400);
    assert.equal(notObject.message, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    const missing = status(await patch(`${DEPLOYMENTS}/nope`, '{}'), 404);
    assert.equal(missing.message, 'deployments.apps "nope" not found');
  });

  it('dry run answers the patched object and stores nothing', async () => {
    const dry = await patch(`${DEPLOYMENTS}/api`, '{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"nginx:dry"}]}}}}', '?dryRun=All');
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.json<typeof deployment>().spec.template.spec.containers[0]!.image, 'nginx:dry');
    const stored = await api.request('GET', `${DEPLOYMENTS}/api`);
    assert.equal(stored.json<typeof deployment>().spec.template.spec.containers[0]!.image, 'nginx:1');
  });

  it('the patched object has Go\'s JSON shape: deleting the last env var leaves no env, as upstream', async () => {
    type Container = { name: string; env?: unknown; resources?: unknown };
    const containerOf = (r: ApiResponse): Container => r.json<{ spec: { template: { spec: { containers: Container[] } } } }>().spec.template.spec.containers[0]!;
    const added = await patch(`${DEPLOYMENTS}/api`, '{"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"B","value":"2"}]}]}}}}');
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(containerOf(added).env, [{ name: 'B', value: '2' }, { name: 'A', value: '1' }]);
    const emptied = await patch(`${DEPLOYMENTS}/api`, '{"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"A","$patch":"delete"},{"name":"B","$patch":"delete"}]}]}}}}');
    assert.equal(emptied.status, 200, emptied.text);
    assert.equal(Object.hasOwn(containerOf(emptied), 'env'), false, emptied.text);
    // A struct Go always writes, even with omitempty.
    assert.deepEqual(containerOf(emptied).resources, {});
  });

  it('subresources: scale takes a strategic merge patch of a Scale, status merges conditions by type', async () => {
    const scaled = await patch(`${DEPLOYMENTS}/api/scale`, '{"spec":{"replicas":3}}');
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal(scaled.json<{ kind: string; spec: { replicas: number } }>().kind, 'Scale');
    assert.equal(scaled.json<{ spec: { replicas: number } }>().spec.replicas, 3);

    const condition = (type: string, s: string) => ({ type, status: s, reason: 'Test', message: type });
    const first = await patch(`${DEPLOYMENTS}/api/status`, JSON.stringify({ status: { conditions: [condition('Available', 'True'), condition('Progressing', 'True')] } }));
    assert.equal(first.status, 200, first.text);
    const second = await patch(`${DEPLOYMENTS}/api/status`, JSON.stringify({ status: { conditions: [condition('Available', 'False')] } }));
    assert.equal(second.status, 200, second.text);
    const conditions = second.json<{ status: { conditions: Array<{ type: string; status: string }> } }>().status.conditions;
    assert.deepEqual(
      conditions.map((c) => `${c.type}=${c.status}`),
      ['Available=False', 'Progressing=True'],
    );
  });
});
