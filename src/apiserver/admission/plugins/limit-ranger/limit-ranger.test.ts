import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isForbidden, type StatusError } from '../../../../machinery/status.js';
import { newHarness, type Harness } from '../resource-quota/testing/admission-harness.js';
import { limitRequestRatioConstraint, maxRequestConstraint, minConstraint } from './constraints.js';
import { aggregate, LIMIT_RANGER_ANNOTATION, NAME, newLimitRanger, validateClaim } from './limit-ranger.js';
import type { MutatingAdmissionPlugin, ValidatingAdmissionPlugin } from '../../interfaces.js';

type Resources = Record<string, string>;
const pod = (name: string, containers: { name?: string; requests?: Resources; limits?: Resources }[] = [{}], init: { name: string; requests?: Resources }[] = []): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    containers: containers.map((c, i) => ({ name: c.name ?? (i === 0 ? name : `c${i}`), image: 'nginx', resources: { ...(c.requests ? { requests: c.requests } : {}), ...(c.limits ? { limits: c.limits } : {}) } })),
    ...(init.length > 0 ? { initContainers: init.map((c) => ({ name: c.name, image: 'busybox', resources: c.requests ? { requests: c.requests } : {} })) } : {}),
  },
});

describe('LimitRanger admission', () => {
  let h: Harness;
  let plugin: MutatingAdmissionPlugin & ValidatingAdmissionPlugin;
  beforeEach(async () => {
    h = await newHarness(['default']);
    plugin = newLimitRanger(h.deps) as MutatingAdmissionPlugin & ValidatingAdmissionPlugin;
  });
  afterEach(() => h.stop());

  const limitRange = (name: string, limits: Record<string, unknown>[]): Promise<KubeObject> =>
    h.store('', 'limitranges').create('default', { apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits } });
  async function refusal(work: Promise<unknown>): Promise<StatusError> {
    try {
      await work;
    } catch (e: unknown) {
      assert.ok(isForbidden(e), String(e));
      return e as StatusError;
    }
    assert.fail('expected a refusal');
  }

  it('is named LimitRanger, mutating and validating', () => {
    assert.equal(plugin.name, NAME);
    assert.equal(NAME, 'LimitRanger');
    assert.ok(plugin.handles('CREATE') && !plugin.handles('DELETE'));
  });

  it('sets default limits and requests a container lacks, and notes them in the annotation', async () => {
    await limitRange('defaults', [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }]);
    const created = await h.create(plugin, 'pods', 'default', pod('web', [{}, { name: 'side', requests: { memory: '64Mi' } }], [{ name: 'init' }]));
    const spec = created.spec as { containers: { resources: { requests?: Resources; limits?: Resources } }[]; initContainers: { resources: { requests?: Resources; limits?: Resources } }[] };
    assert.deepEqual(spec.containers[0]!.resources, { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
    assert.deepEqual(spec.containers[1]!.resources, { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
    assert.deepEqual(spec.initContainers[0]!.resources.limits, { cpu: '500m', memory: '256Mi' });
    assert.equal(
      created.metadata.annotations?.[LIMIT_RANGER_ANNOTATION],
      'LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web; cpu request for container side; cpu, memory limit for container side; cpu, memory request for init container init; cpu, memory limit for init container init',
    );
  });

  it('takes a stated limit as the request (the API default) and defaults from max when no default is given', async () => {
    await limitRange('bounds', [{ type: 'Container', max: { cpu: '2' } }]);
    const created = await h.create(plugin, 'pods', 'default', pod('web', [{ limits: { cpu: '1' } }, { name: 'b' }]));
    const containers = (created.spec as { containers: { resources: { requests?: Resources; limits?: Resources } }[] }).containers;
    assert.deepEqual(containers[0]!.resources, { limits: { cpu: '1' }, requests: { cpu: '1' } });
    assert.deepEqual(containers[1]!.resources, { limits: { cpu: '2' }, requests: { cpu: '2' } });
  });

  it('refuses a container above max with the upstream message, several breaches in brackets, nothing stored', async () => {
    await limitRange('bounds', [{ type: 'Container', max: { cpu: '500m' }, min: { memory: '100Mi' }, default: { memory: '200Mi' } }]);
    const e = await refusal(h.create(plugin, 'pods', 'default', pod('web', [{ limits: { cpu: '1' } }])));
    assert.equal(e.message, 'pods "web" is forbidden: maximum cpu usage per Container is 500m, but limit is 1');
    const two = await refusal(h.create(plugin, 'pods', 'default', pod('two', [{ limits: { cpu: '1', memory: '50Mi' } }])));
    assert.equal(two.message, 'pods "two" is forbidden: [minimum memory usage per Container is 100Mi, but request is 50Mi, maximum cpu usage per Container is 500m, but limit is 1]');
    await assert.rejects(h.store('', 'pods').get('default', 'web'));
  });

  it('bounds the pod as a whole (Pod items) and the limit to request ratio', async () => {
    await limitRange('pod', [
      { type: 'Pod', max: { memory: '1Gi' } },
      { type: 'Container', maxLimitRequestRatio: { cpu: '2' } },
    ]);
    const e = await refusal(h.create(plugin, 'pods', 'default', pod('web', [{ limits: { memory: '768Mi', cpu: '1' }, requests: { cpu: '500m' } }, { name: 'b', limits: { memory: '512Mi', cpu: '1' }, requests: { cpu: '250m' } }])));
    assert.equal(e.message, 'pods "web" is forbidden: [maximum memory usage per Pod is 1Gi, but limit is 1280Mi, cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000]');
    await h.create(plugin, 'pods', 'default', pod('ok', [{ limits: { memory: '512Mi', cpu: '1' }, requests: { cpu: '500m' } }]));
  });

  it('leaves namespaces without LimitRanges, pod updates and other kinds alone', async () => {
    const created = await h.create(plugin, 'pods', 'default', pod('web'));
    assert.equal(created.metadata.annotations?.[LIMIT_RANGER_ANNOTATION], undefined);
    await limitRange('bounds', [{ type: 'Container', max: { cpu: '500m' } }]);
    created.metadata.labels = { x: 'y' };
    await h.update(plugin, 'pods', 'default', created);
    await h.create(plugin, 'configmaps', 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  });

  it('applies a LimitRange made after the namespace was looked up empty, once its watch has seen it', async () => {
    // The first pod finds no LimitRange (the live lookup keeps that answer); the new one reaches the plugin by its watch.
    await h.create(plugin, 'pods', 'default', pod('first'));
    await limitRange('defaults', [{ type: 'Container', default: { cpu: '300m' } }]);
    const deadline = Date.now() + 10_000;
    for (let n = 0; ; n++) {
      const created = await h.create(plugin, 'pods', 'default', pod(`p${n}`));
      if (created.metadata.annotations?.[LIMIT_RANGER_ANNOTATION] !== undefined) break;
      assert.ok(Date.now() < deadline, 'the LimitRange never reached the plugin');
      await new Promise((resolve) => setImmediate(resolve));
    }
  });

  it('bounds claims (PersistentVolumeClaim items) and states every constraint message', () => {
    const range = { spec: { limits: [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }] } };
    assert.deepEqual(validateClaim({ spec: { resources: { requests: { storage: '20Gi' } } } }, range), ['maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi']);
    assert.deepEqual(validateClaim({ spec: { resources: { requests: { storage: '500Mi' } } } }, range), ['minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi']);
    assert.deepEqual(validateClaim({ spec: {} }, range), [
      'minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified',
      'maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified',
    ]);
    assert.equal(minConstraint('Container', 'cpu', '100m', { cpu: '200m' }, { cpu: '50m' }), 'minimum cpu usage per Container is 100m, but limit is 50m');
    assert.equal(maxRequestConstraint('PersistentVolumeClaim', 'storage', '1Gi', { storage: '1Gi' }), undefined);
    assert.equal(limitRequestRatioConstraint('Container', 'cpu', '2', {}, { cpu: '1' }), 'cpu max limit to request ratio per Container is 2, but no request is specified or request is 0');
    assert.equal(limitRequestRatioConstraint('Container', 'cpu', '2', { cpu: '1' }, {}), 'cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0');
    assert.equal(aggregate(['a']), 'a');
    assert.equal(aggregate(['a', 'b']), '[a, b]');
  });
});
