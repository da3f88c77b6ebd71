/**
 * Server-side apply with real kubectl against a real k8ts API server: apply
 * creating an object, re-applying an edited file (dropped fields disappear),
 * a conflict with another manager (kubectl's error text), --force-conflicts,
 * `kubectl diff` (a server-side dry-run apply) and --show-managed-fields.
 * One server per kubectl version (one test file each).
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { newKubectl, type Kubectl, type KubectlVersion } from '../testing/kubectl.js';

interface ManagedEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  time?: string;
  subresource?: string;
}

interface Obj {
  metadata: { managedFields?: ManagedEntry[]; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: { template: { spec: { containers: Array<{ name: string; image: string }> } } };
}

const configMap = (data: Record<string, string>, name = 'ssa-cm'): string =>
  ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, '  namespace: default', 'data:', ...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`), ''].join('\n');

const deployment = (containers: Array<[string, string]>): string =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: ssa-web',
    '  namespace: default',
    'spec:',
    '  replicas: 1',
    '  selector:',
    '    matchLabels: {app: ssa-web}',
    '  template:',
    '    metadata:',
    '      labels: {app: ssa-web}',
    '    spec:',
    '      containers:',
    ...containers.flatMap(([name, image]) => [`      - name: ${name}`, `        image: ${image}`]),
    '',
  ].join('\n');

export function serverSideApplySuite(version: KubectlVersion): void {
  describe(`server-side apply with kubectl ${version}`, () => {
    let cluster: TestCluster;
    let kubectl: Kubectl;
    const file = (name: string): string => join(cluster.workDir, name);
    const getJson = async (...args: string[]): Promise<Obj> => JSON.parse(await kubectl.ok('get', ...args, '-o', 'json')) as Obj;

    before(async () => {
      cluster = await startLeanCluster(`ssa-${version}`);
      kubectl = newKubectl(version, cluster.kubeconfig);
    });
    after(async () => {
      await cluster?.stop();
    });

    it('creates an object with apply and records the applier in managedFields', async () => {
      await writeFile(file('cm.yaml'), configMap({ a: '1', b: '2' }));
      const out = await kubectl.ok('apply', '--server-side', '-f', file('cm.yaml'));
      assert.match(out, /configmap\/ssa-cm serverside-applied/);
      const cm = await getJson('configmap', 'ssa-cm', '--show-managed-fields');
      assert.deepEqual(cm.data, { a: '1', b: '2' });
      const entries = cm.metadata.managedFields ?? [];
      assert.equal(entries.length, 1);
      const entry = entries[0]!;
      assert.equal(entry.manager, 'kubectl');
      assert.equal(entry.operation, 'Apply');
      assert.equal(entry.apiVersion, 'v1');
      assert.equal(entry.fieldsType, 'FieldsV1');
      assert.deepEqual(entry.fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
      assert.match(entry.time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('re-applying an edited file removes the fields it no longer sets', async () => {
      await writeFile(file('cm.yaml'), configMap({ a: '1', c: '3' }));
      await kubectl.ok('apply', '--server-side', '-f', file('cm.yaml'));
      const cm = await getJson('configmap', 'ssa-cm', '--show-managed-fields');
      assert.deepEqual(cm.data, { a: '1', c: '3' });
      assert.deepEqual(cm.metadata.managedFields?.[0]?.fieldsV1, { 'f:data': { 'f:a': {}, 'f:c': {} } });
    });

    it('keeps a field another manager set and the applier dropped', async () => {
      await kubectl.ok('patch', 'configmap', 'ssa-cm', '--type', 'merge', '-p', '{"data":{"extra":"x"}}');
      await kubectl.ok('apply', '--server-side', '-f', file('cm.yaml'));
      const cm = await getJson('configmap', 'ssa-cm');
      assert.deepEqual(cm.data, { a: '1', c: '3', extra: 'x' });
    });

    it('fails with a conflict when another manager owns a field with another value', async () => {
      await kubectl.ok('patch', 'configmap', 'ssa-cm', '--type', 'merge', '-p', '{"data":{"a":"patched"}}');
      const r = await kubectl('apply', '--server-side', '-f', file('cm.yaml'));
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: \.data\.a/);
      const cm = await getJson('configmap', 'ssa-cm');
      assert.equal(cm.data?.a, 'patched');
    });

    it('takes the field over with --force-conflicts', async () => {
      await kubectl.ok('apply', '--server-side', '--force-conflicts', '-f', file('cm.yaml'));
      const cm = await getJson('configmap', 'ssa-cm', '--show-managed-fields');
      assert.equal(cm.data?.a, '1');
      const patcher = cm.metadata.managedFields?.find((e) => e.manager === 'kubectl-patch');
      assert.deepEqual(patcher?.fieldsV1, { 'f:data': { 'f:extra': {} } });
      const applier = cm.metadata.managedFields?.find((e) => e.manager === 'kubectl');
      assert.deepEqual(applier?.fieldsV1, { 'f:data': { 'f:a': {}, 'f:c': {} } });
    });

    it('conflicts with the fields of client-side apply for another manager; kubectl itself takes them over', async () => {
      await writeFile(file('csa.yaml'), configMap({ key: 'one' }, 'ssa-csa'));
      await kubectl.ok('apply', '-f', file('csa.yaml'));
      await writeFile(file('csa.yaml'), configMap({ key: 'two' }, 'ssa-csa'));
      const r = await kubectl('apply', '--server-side', '--field-manager', 'my-applier', '-f', file('csa.yaml'));
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: \.data\.key/);
      // kubectl's own server-side apply upgrades from client-side apply without a conflict.
      await kubectl.ok('apply', '--server-side', '-f', file('csa.yaml'));
      const cm = await getJson('configmap', 'ssa-csa');
      assert.equal(cm.data?.key, 'two');
      const lastApplied = JSON.parse(cm.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}') as Obj;
      assert.deepEqual(lastApplied.data, { key: 'two' });
    });

    it('diffs through a server-side dry-run apply without changing the object', async () => {
      await writeFile(file('cm-diff.yaml'), configMap({ a: '1', c: 'changed' }));
      const r = await kubectl('diff', '--server-side', '-f', file('cm-diff.yaml'));
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /^-\s+c: "3"$/m);
      assert.match(r.stdout, /^\+\s+c: changed$/m);
      const cm = await getJson('configmap', 'ssa-cm');
      assert.equal(cm.data?.c, '3');
    });

    it('shows managedFields only with --show-managed-fields', async () => {
      const plain = await kubectl.ok('get', 'configmap', 'ssa-cm', '-o', 'yaml');
      assert.doesNotMatch(plain, /managedFields/);
      const shown = await kubectl.ok('get', 'configmap', 'ssa-cm', '-o', 'yaml', '--show-managed-fields');
      assert.match(shown, /managedFields:/);
      assert.match(shown, /manager: kubectl\n\s+operation: Apply/);
      assert.match(shown, /manager: kubectl-patch\n\s+operation: Update/);
    });

    it('merges lists by key and removes an item the applier dropped', async () => {
      await writeFile(file('deploy.yaml'), deployment([['web', 'nginx:1'], ['side', 'busybox:1']]));
      await kubectl.ok('apply', '--server-side', '-f', file('deploy.yaml'));
      await writeFile(file('deploy.yaml'), deployment([['web', 'nginx:2']]));
      await kubectl.ok('apply', '--server-side', '-f', file('deploy.yaml'));
      const d = await getJson('deployment', 'ssa-web', '--show-managed-fields');
      assert.deepEqual(
        d.spec?.template.spec.containers.map((c) => [c.name, c.image]),
        [['web', 'nginx:2']],
      );
      const applier = d.metadata.managedFields?.find((e) => e.manager === 'kubectl' && e.operation === 'Apply');
      const containers = (((applier?.fieldsV1['f:spec'] as Record<string, unknown>)['f:template'] as Record<string, unknown>)['f:spec'] as Record<string, unknown>)['f:containers'];
      assert.deepEqual(containers, { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } });
    });

    it('records kubectl scale under the scale subresource, on the deployment\'s own paths', async () => {
      await kubectl.ok('scale', 'deployment', 'ssa-web', '--replicas=3');
      const d = await getJson('deployment', 'ssa-web', '--show-managed-fields');
      const scaler = d.metadata.managedFields?.find((e) => e.subresource === 'scale');
      assert.ok(scaler !== undefined, JSON.stringify(d.metadata.managedFields));
      assert.match(scaler.manager, /^kubectl/);
      assert.equal(scaler.operation, 'Update');
      assert.equal(scaler.apiVersion, 'apps/v1');
      assert.deepEqual(scaler.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
      // The applier set replicas too: it no longer owns them.
      const applier = d.metadata.managedFields?.find((e) => e.manager === 'kubectl' && e.operation === 'Apply');
      assert.equal((applier?.fieldsV1['f:spec'] as Record<string, unknown>)['f:replicas'], undefined);
    });
  });
}
