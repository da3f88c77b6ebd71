import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IPFamily } from '../endpoints/pod-rules.js';
import { testPod, testService } from '../endpoints/testing/objects.js';
import { desiredEndpoints, type DesiredGroup, type NodeObject } from './desired-endpoints.js';
import { CONTROLLER_NAME, MANAGED_BY_LABEL, planSlices, SERVICE_NAME_LABEL, type EndpointSliceObject } from './slice-plan.js';

const service = testService('web');
const node: NodeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z1' } } };
const desired = (pods = [testPod('a', { ip: '10.0.0.1', node: 'n1' })]): Map<IPFamily, Map<string, DesiredGroup>> =>
  new Map([['IPv4', desiredEndpoints(service, pods, 'IPv4', (n) => (n === 'n1' ? node : undefined)).groups]]);

let counter = 0;
/** What the API server would store for a planned create. */
const stored = (slice: EndpointSliceObject): EndpointSliceObject => ({
  ...slice,
  metadata: { ...slice.metadata, name: `web-${++counter}`, uid: `s${counter}`, resourceVersion: '1' },
});

describe('desiredEndpoints', () => {
  it('gives each pod its conditions, node and zone; terminating pods stay, not ready', () => {
    const pods = [testPod('a', { ip: '10.0.0.1', node: 'n1' }), testPod('b', { ip: '10.0.0.2', ready: true, deleting: true }), testPod('c', { ip: '10.0.0.3', ready: false })];
    const group = [...desiredEndpoints(service, pods, 'IPv4', () => node).groups.values()][0]!;
    assert.deepEqual(group.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const byName = new Map([...group.endpoints.values()].map((e) => [e.targetRef?.name, e]));
    assert.deepEqual(byName.get('a'), {
      addresses: ['10.0.0.1'],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' },
      nodeName: 'n1',
      zone: 'z1',
    });
    assert.deepEqual(byName.get('b')?.conditions, { ready: false, serving: true, terminating: true });
    assert.deepEqual(byName.get('c')?.conditions, { ready: false, serving: false, terminating: false });
  });
  it('counts pods on nodes not in the cache and leaves them out', () => {
    const state = desiredEndpoints(service, [testPod('a', { ip: '10.0.0.1', node: 'nowhere' })], 'IPv4', () => undefined);
    assert.equal(state.podsOnMissingNodes, 1);
    assert.equal(state.groups.size, 0);
  });
  it('only takes addresses of the slice’s type', () => {
    assert.equal(desiredEndpoints(service, [testPod('a', { ip: 'fd00::1' })], 'IPv4', () => undefined).groups.size, 0);
  });
});

describe('planSlices', () => {
  it('creates one labelled slice owned by the Service', () => {
    const plan = planSlices({ service, desired: desired(), existing: [], triggerTime: '2026-01-01T00:00:00Z' });
    assert.equal(plan.toCreate.length, 1);
    const slice = plan.toCreate[0]!;
    assert.equal(slice.metadata.generateName, 'web-');
    assert.deepEqual(slice.metadata.labels, { [SERVICE_NAME_LABEL]: 'web', [MANAGED_BY_LABEL]: CONTROLLER_NAME });
    assert.deepEqual(slice.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'uid-svc-web', controller: true, blockOwnerDeletion: true }]);
    assert.equal(slice.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'], '2026-01-01T00:00:00Z');
    assert.equal(slice.addressType, 'IPv4');
    assert.equal(slice.endpoints.length, 1);
  });
  it('does nothing when the slices are current', () => {
    const existing = planSlices({ service, desired: desired(), existing: [] }).toCreate.map(stored);
    assert.deepEqual(planSlices({ service, desired: desired(), existing }), { toCreate: [], toUpdate: [], toDelete: [] });
  });
  it('updates the slice in place when an endpoint changes', () => {
    const existing = planSlices({ service, desired: desired(), existing: [] }).toCreate.map(stored);
    const plan = planSlices({ service, desired: desired([testPod('a', { ip: '10.0.0.1', node: 'n1', ready: false })]), existing });
    assert.equal(plan.toUpdate.length, 1);
    assert.equal(plan.toUpdate[0]!.metadata.name, existing[0]!.metadata.name);
    assert.equal(plan.toUpdate[0]!.endpoints[0]!.conditions?.ready, false);
  });
  it('splits at maxEndpointsPerSlice and fills existing slices before creating', () => {
    const pods = Array.from({ length: 5 }, (_, i) => testPod(`p${i}`, { ip: `10.0.0.${i + 1}` }));
    const first = planSlices({ service, desired: desired(pods.slice(0, 3)), existing: [], maxEndpointsPerSlice: 2 });
    assert.deepEqual(first.toCreate.map((s) => s.endpoints.length), [2, 1]);
    const existing = first.toCreate.map(stored);
    const second = planSlices({ service, desired: desired(pods), existing, maxEndpointsPerSlice: 2 });
    assert.deepEqual(second.toUpdate.map((s) => s.endpoints.length), [2]);
    assert.deepEqual(second.toCreate.map((s) => s.endpoints.length), [1]);
  });
  it('keeps one empty placeholder when there are no endpoints, and deletes emptied slices', () => {
    const pods = Array.from({ length: 3 }, (_, i) => testPod(`p${i}`, { ip: `10.0.0.${i + 1}` }));
    const existing = planSlices({ service, desired: desired(pods), existing: [], maxEndpointsPerSlice: 2 }).toCreate.map(stored);
    const plan = planSlices({ service, desired: desired([]), existing, maxEndpointsPerSlice: 2 });
    assert.equal(plan.toCreate.length, 0);
    assert.equal(plan.toUpdate.length, 1);
    assert.deepEqual(plan.toUpdate[0]!.endpoints, []);
    assert.equal(plan.toDelete.length, 1);
    const placeholder = planSlices({ service, desired: desired([]), existing: [] }).toCreate.map(stored);
    assert.deepEqual(planSlices({ service, desired: desired([]), existing: placeholder }), { toCreate: [], toUpdate: [], toDelete: [] });
  });
  it('reuses a slice whose endpoints all went for new endpoints with other ports', () => {
    const existing = planSlices({ service, desired: desired(), existing: [] }).toCreate.map(stored);
    const moved = testPod('a', { ip: '10.0.0.1', node: 'n1', ports: [{ name: 'http', containerPort: 9999 }] });
    const plan = planSlices({ service, desired: desired([moved]), existing });
    assert.equal(plan.toCreate.length, 0);
    assert.equal(plan.toDelete.length, 0);
    assert.equal(plan.toUpdate[0]!.ports?.[0]?.port, 9999);
  });
  it('deletes slices of an address type the Service no longer serves', () => {
    const v6: EndpointSliceObject = { ...stored(planSlices({ service, desired: desired(), existing: [] }).toCreate[0]!), addressType: 'IPv6' };
    const plan = planSlices({ service, desired: desired(), existing: [v6] });
    assert.equal(plan.toDelete.length, 0, 'reused for the IPv4 endpoints instead');
    assert.equal(plan.toUpdate[0]!.addressType, 'IPv4');
  });
  it('fixes labels and owner of a slice whose endpoints are current', () => {
    const existing = planSlices({ service, desired: desired(), existing: [] }).toCreate.map(stored);
    existing[0]!.metadata.labels = { ...existing[0]!.metadata.labels, stray: 'x' };
    const plan = planSlices({ service, desired: desired(), existing });
    assert.equal(plan.toUpdate.length, 1);
    assert.equal(plan.toUpdate[0]!.metadata.labels?.stray, undefined);
  });
});
