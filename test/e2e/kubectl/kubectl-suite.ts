/**
 * The kubectl end-to-end scenarios, run by one test file per kubectl version
 * (kubectl-1.33.test.ts, …), each against an API server of its own (no
 * controller manager or scheduler: nothing here needs them). Every assertion
 * is on the lines kubectl prints, as upstream's kubectl prints them against
 * upstream's API server; `<AGE>` and `<ANY>` (see output.ts) stand for what
 * changes from run to run.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newKubectl, type Kubectl, type KubectlResult, type KubectlVersion } from '../testing/kubectl.js';
import type { TestCluster } from './cluster.js';
import { startLeanCluster } from './lean-cluster.js';
import { ProcessGroup } from './long-running.js';
import { assertLines, maskVolatile, outputLines } from './output.js';

/** The upstream message of an invalid DNS-1123 subdomain (a configmap's name). */
const DNS1123_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const CONFLICT = 'the object has been modified; please apply your changes to the latest version and try again';

function configMap(name: string, options: { namespace?: string; labels?: Record<string, string>; data?: Record<string, string>; finalizers?: string[] } = {}): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`];
  if (options.namespace !== undefined) lines.push(`  namespace: ${options.namespace}`);
  if (options.labels !== undefined) {
    lines.push('  labels:');
    for (const [k, v] of Object.entries(options.labels)) lines.push(`    ${k}: "${v}"`);
  }
  if (options.finalizers !== undefined) {
    lines.push('  finalizers:');
    for (const f of options.finalizers) lines.push(`  - ${f}`);
  }
  if (options.data !== undefined) {
    lines.push('data:');
    for (const [k, v] of Object.entries(options.data)) lines.push(`  ${k}: "${v}"`);
  }
  return `${lines.join('\n')}\n`;
}

const namespace = (name: string): string => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

/** Run the whole scenario list with kubectl `version` against a server of its own. */
export function kubectlSuite(version: KubectlVersion): void {
  describe(`kubectl ${version} against k8ts`, () => {
    let cluster: TestCluster;
    let kubectl: Kubectl;
    const processes = new ProcessGroup();
    let manifests = 0;

    /** Write a manifest into the scratch directory; returns its path (kubectl prints it in errors). */
    const manifest = async (name: string, ...documents: string[]): Promise<string> => {
      const path = join(cluster.workDir, `${String(++manifests).padStart(2, '0')}-${name}.yaml`);
      await writeFile(path, documents.join('---\n'));
      return path;
    };
    /** kubectl, failing with its output unless it exits as expected. */
    const run = async (expectedCode: number, ...args: string[]): Promise<KubectlResult> => {
      const r = await kubectl(...args);
      assert.equal(r.code, expectedCode, `kubectl ${args.join(' ')} exited ${r.code}, expected ${expectedCode}:\n${r.stderr}${r.stdout}`);
      return r;
    };
    const ok = (...args: string[]): Promise<string> => kubectl.ok(...args);
    /** Start `kubectl ARGS` in the background (stopped in `after`). */
    const background = (...args: string[]) => processes.start(kubectl.binary, args, kubectl.env);

    before(async () => {
      cluster = await startLeanCluster(`kubectl-${version}`);
      kubectl = newKubectl(version, cluster.kubeconfig);
    });
    after(async () => {
      await processes.stopAll();
      await cluster?.stop();
    });

    it('version, api-versions and api-resources describe the server', async () => {
      const json = JSON.parse(await ok('version', '-o', 'json')) as { serverVersion: Record<string, string> };
      assert.equal(json.serverVersion.major, '1');
      assert.equal(json.serverVersion.minor, '33');
      assert.match(json.serverVersion.gitVersion ?? '', /^v1\.33\.\d+/);
      const plain = await kubectl('version');
      assert.equal(plain.code, 0, plain.stderr);
      if (version === '1.27') {
        assertLines(plain.stdout, [
          'Client Version: version.Info{Major:"1", Minor:"27", <ANY>}',
          'Kustomize Version: <ANY>',
          `Server Version: version.Info{Major:"1", Minor:"33", GitVersion:"${json.serverVersion.gitVersion}", <ANY>}`,
        ]);
        assert.ok(
          outputLines(plain.stderr).includes('WARNING: version difference between client (1.27) and server (1.33) exceeds the supported minor version skew of +/-1'),
          plain.stderr,
        );
      } else {
        assertLines(plain.stdout, [`Client Version: v${version}.<ANY>`, 'Kustomize Version: <ANY>', `Server Version: ${json.serverVersion.gitVersion}`]);
      }

      const versions = outputLines(await ok('api-versions'));
      assert.deepEqual([...versions].sort(), versions, 'api-versions prints its lines sorted');
      for (const v of ['apps/v1', 'batch/v1', 'coordination.k8s.io/v1', 'policy/v1', 'rbac.authorization.k8s.io/v1', 'v1']) assert.ok(versions.includes(v), `${v} in\n${versions.join('\n')}`);

      const resources = outputLines(await ok('api-resources'));
      assert.match(resources[0]!, /^NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND$/);
      for (const row of [
        /^configmaps +cm +v1 +true +ConfigMap$/,
        /^namespaces +ns +v1 +false +Namespace$/,
        /^pods +po +v1 +true +Pod$/,
        /^deployments +deploy +apps\/v1 +true +Deployment$/,
        /^clusterroles +rbac\.authorization\.k8s\.io\/v1 +false +ClusterRole$/,
      ]) {
        assert.ok(resources.some((l) => row.test(l)), `a line matching ${row} in\n${resources.join('\n')}`);
      }
      assertLines(await ok('api-resources', '--api-group=apps', '-o', 'name'), [
        'controllerrevisions.apps',
        'daemonsets.apps',
        'deployments.apps',
        'replicasets.apps',
        'statefulsets.apps',
      ]);
    });

    it('create -f: one document, then several; creating them again is AlreadyExists for each', async () => {
      const single = await manifest('single', configMap('single', { labels: { app: 'demo', tier: 'c' }, data: { k: 'single' } }));
      assertLines(await ok('create', '-f', single), ['configmap/single created']);

      const multi = await manifest(
        'multi',
        namespace('e2e-multi'),
        configMap('alpha', { namespace: 'e2e-multi', labels: { app: 'demo', tier: 'a' }, data: { k: 'v' } }),
        configMap('beta', { namespace: 'e2e-multi', labels: { app: 'demo', tier: 'b' }, data: { k: 'w', other: 'x' } }),
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: gamma\n  namespace: e2e-multi\ntype: Opaque\ndata:\n  password: c2VjcmV0\n',
        [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata:',
          '  name: web',
          '  namespace: e2e-multi',
          '  labels: {app: web}',
          'spec:',
          // No replicas: the table stays the same whether or not a deployment controller runs.
          '  replicas: 0',
          '  selector: {matchLabels: {app: web}}',
          '  template:',
          '    metadata: {labels: {app: web}}',
          '    spec:',
          '      containers:',
          '      - name: nginx',
          '        image: nginx:1.25',
          '',
        ].join('\n'),
      );
      assertLines(await ok('create', '-f', multi), [
        'namespace/e2e-multi created',
        'configmap/alpha created',
        'configmap/beta created',
        'secret/gamma created',
        'deployment.apps/web created',
      ]);

      const again = await run(1, 'create', '-f', multi);
      assertLines(again.stdout, []);
      assertLines(again.stderr, [
        `Error from server (AlreadyExists): error when creating "${multi}": namespaces "e2e-multi" already exists`,
        `Error from server (AlreadyExists): error when creating "${multi}": configmaps "alpha" already exists`,
        `Error from server (AlreadyExists): error when creating "${multi}": configmaps "beta" already exists`,
        `Error from server (AlreadyExists): error when creating "${multi}": secrets "gamma" already exists`,
        `Error from server (AlreadyExists): error when creating "${multi}": deployments.apps "web" already exists`,
      ]);
    });

    it('get prints tables, wide, labels, label columns, selections and every namespace', async () => {
      const ns = ['-n', 'e2e-multi'];
      const table = ['NAME    DATA   AGE', 'alpha   1      <AGE>', 'beta    2      <AGE>'];
      assertLines(await ok('get', 'configmaps', ...ns, '-l', 'app=demo'), table);
      assertLines(await ok('get', 'cm', ...ns, '-l', 'app=demo', '-o', 'wide'), table);
      assertLines(await ok('get', 'cm', ...ns, '-l', 'app=demo', '--show-labels'), [
        'NAME    DATA   AGE   LABELS',
        'alpha   1      <AGE>   app=demo,tier=a',
        'beta    2      <AGE>   app=demo,tier=b',
      ]);
      assertLines(await ok('get', 'cm', ...ns, '-l', 'app=demo', '-L', 'tier,app'), [
        'NAME    DATA   AGE   TIER   APP',
        'alpha   1      <AGE>   a      demo',
        'beta    2      <AGE>   b      demo',
      ]);
      assertLines(await ok('get', 'cm', ...ns, '-l', 'tier=a'), ['NAME    DATA   AGE', 'alpha   1      <AGE>']);
      assertLines(await ok('get', 'cm', ...ns, '-l', 'tier in (a,b),app!=other'), table);
      assertLines(await ok('get', 'cm', ...ns, '--field-selector', 'metadata.name=beta'), ['NAME   DATA   AGE', 'beta   2      <AGE>']);
      assertLines(await ok('get', 'cm', '-A', '-l', 'app=demo'), [
        'NAMESPACE   NAME     DATA   AGE',
        'default     single   1      <AGE>',
        'e2e-multi   alpha    1      <AGE>',
        'e2e-multi   beta     2      <AGE>',
      ]);
      assertLines(await ok('get', 'cm', '--all-namespaces', '-l', 'app=demo', '--field-selector', 'metadata.namespace!=default', '-o', 'name'), [
        'configmap/alpha',
        'configmap/beta',
      ]);
      const none = await run(0, 'get', 'cm', ...ns, '-l', 'app=nothing');
      assertLines(none.stdout, []);
      assertLines(none.stderr, ['No resources found in e2e-multi namespace.']);

      assertLines(await ok('get', 'deployments', ...ns), ['NAME   READY   UP-TO-DATE   AVAILABLE   AGE', 'web    0/0     0            0           <AGE>']);
      assertLines(await ok('get', 'deploy', 'web', ...ns, '-o', 'wide'), [
        'NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES       SELECTOR',
        'web    0/0     0            0           <AGE>   nginx        nginx:1.25   app=web',
      ]);
      assertLines(await ok('get', 'secret', 'gamma', ...ns), ['NAME    TYPE     DATA   AGE', 'gamma   Opaque   1      <AGE>']);
      assertLines(await ok('get', 'namespace', 'e2e-multi'), ['NAME        STATUS   AGE', 'e2e-multi   Active   <AGE>']);
      assertLines(await ok('get', 'ns', 'e2e-multi', '--show-labels'), [
        'NAME        STATUS   AGE   LABELS',
        'e2e-multi   Active   <AGE>   kubernetes.io/metadata.name=e2e-multi',
      ]);
    });

    it('get -o yaml, json, name and jsonpath', async () => {
      const ns = ['-n', 'e2e-multi'];
      assert.equal(
        maskVolatile(await ok('get', 'cm', 'alpha', ...ns, '-o', 'yaml')),
        [
          'apiVersion: v1',
          'data:',
          '  k: v',
          'kind: ConfigMap',
          'metadata:',
          '  creationTimestamp: "<TIME>"',
          '  labels:',
          '    app: demo',
          '    tier: a',
          '  name: alpha',
          '  namespace: e2e-multi',
          '  resourceVersion: "<RV>"',
          '  uid: <UID>',
          '',
        ].join('\n'),
      );
      assert.equal(
        maskVolatile(await ok('get', 'cm', 'alpha', ...ns, '-o', 'json')),
        [
          '{',
          '    "apiVersion": "v1",',
          '    "data": {',
          '        "k": "v"',
          '    },',
          '    "kind": "ConfigMap",',
          '    "metadata": {',
          '        "creationTimestamp": "<TIME>",',
          '        "labels": {',
          '            "app": "demo",',
          '            "tier": "a"',
          '        },',
          '        "name": "alpha",',
          '        "namespace": "e2e-multi",',
          '        "resourceVersion": "<RV>",',
          '        "uid": "<UID>"',
          '    }',
          '}',
          '',
        ].join('\n'),
      );
      const list = JSON.parse(await ok('get', 'cm', ...ns, '-l', 'app=demo', '-o', 'json')) as { apiVersion: string; kind: string; items: { metadata: { name: string } }[] };
      assert.equal(list.apiVersion, 'v1');
      assert.equal(list.kind, 'List');
      assert.deepEqual(
        list.items.map((i) => i.metadata.name),
        ['alpha', 'beta'],
      );
      assertLines(await ok('get', 'cm', ...ns, '-l', 'app=demo', '-o', 'name'), ['configmap/alpha', 'configmap/beta']);
      assertLines(await ok('get', 'deploy,secret', ...ns, '-o', 'name'), ['deployment.apps/web', 'secret/gamma']);
      assert.equal(await ok('get', 'cm', ...ns, '-l', 'app=demo', '-o', 'jsonpath={.items[*].metadata.name}'), 'alpha beta');
      assert.equal(await ok('get', 'cm', 'beta', ...ns, '-o', 'jsonpath={.data.other}'), 'x');
      assert.equal(await ok('get', 'secret', 'gamma', ...ns, '-o', 'jsonpath={.data.password}'), 'c2VjcmV0');
      assert.equal(await ok('get', 'deploy', 'web', ...ns, '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'nginx:1.25');
    });

    it('get --chunk-size=2 pages through many objects; --sort-by orders them', async () => {
      const ranks = ['4', '7', '1', '6', '2', '5', '3'];
      const docs = ranks.map((rank, i) => configMap(`chunk-${i + 1}`, { labels: { suite: 'chunk' }, data: { rank } }));
      assertLines(
        await ok('create', '-f', await manifest('chunks', ...docs)),
        ranks.map((_, i) => `configmap/chunk-${i + 1} created`),
      );
      const paged = await run(0, 'get', 'cm', '-l', 'suite=chunk', '--chunk-size=2', '-v=6');
      assertLines(paged.stdout, ['NAME      DATA   AGE', ...ranks.map((_, i) => `chunk-${i + 1}   1      <AGE>`)]);
      const requests = outputLines(paged.stderr).filter((l) => /configmaps\?.*limit=2/.test(l) && /200 OK/.test(l));
      assert.equal(requests.length, 4, `four pages of at most 2 (7 objects):\n${paged.stderr}`);
      assert.equal(requests.filter((l) => l.includes('continue=')).length, 3, paged.stderr);

      assertLines(await ok('get', 'cm', '-l', 'suite=chunk', '--chunk-size=2', '-o', 'name'), ranks.map((_, i) => `configmap/chunk-${i + 1}`));
      const byRank = [...ranks.keys()].sort((a, b) => Number(ranks[a]) - Number(ranks[b]));
      assertLines(
        await ok('get', 'cm', '-l', 'suite=chunk', '--sort-by=.data.rank', '-o', 'custom-columns=NAME:.metadata.name,RANK:.data.rank'),
        ['NAME      RANK', ...byRank.map((i) => `chunk-${i + 1}   ${ranks[i]}`)],
      );
      assertLines(await ok('get', 'cm', '-l', 'suite=chunk', '--sort-by=.data.rank', '--chunk-size=2'), [
        'NAME      DATA   AGE',
        ...byRank.map((i) => `chunk-${i + 1}   1      <AGE>`),
      ]);
      assertLines(await ok('get', 'cm', '-A', '-l', 'suite=chunk', '--chunk-size=3', '--sort-by=.metadata.name', '-o', 'name'), ranks.map((_, i) => `configmap/chunk-${i + 1}`));
    });

    it('get -w and get NAME -w see the changes another kubectl makes', async () => {
      await ok('create', '-f', await manifest('watched', configMap('watched', { labels: { suite: 'watch' }, data: { a: '1' } })));
      const all = background('get', 'cm', '-l', 'suite=watch', '-w');
      const one = background('get', 'cm', 'watched', '-w');
      const events = background('get', 'cm', '-l', 'suite=watch', '-w', '--output-watch-events');
      const names = background('get', 'cm', 'watched', '-w', '-o', 'name');
      // Each prints the current state first; only then is it watching.
      await all.waitForLine(/^NAME +DATA +AGE$/);
      const allStart = await all.waitForLine(/^watched +1 +\d+s$/);
      await one.waitForLine(/^NAME +DATA +AGE$/);
      const oneStart = await one.waitForLine(/^watched +1 +\d+s$/);
      await events.waitForLine(/^EVENT +NAME +DATA +AGE$/);
      await events.waitForLine(/^ADDED +watched +1 +\d+s$/);
      await names.waitForLine(/^configmap\/watched$/);

      assertLines(await ok('patch', 'cm', 'watched', '--type=merge', '-p', '{"data":{"b":"2"}}'), ['configmap/watched patched']);
      await all.waitForLine(/^watched +2 +\d+s$/, { from: allStart + 1 });
      await one.waitForLine(/^watched +2 +\d+s$/, { from: oneStart + 1 });
      await events.waitForLine(/^MODIFIED +watched +2 +\d+s$/);
      await names.waitForLine(/^configmap\/watched$/, { from: 1 });

      await ok('create', '-f', await manifest('watched-2', configMap('watched-2', { labels: { suite: 'watch' } })));
      await all.waitForLine(/^watched-2 +0 +\d+s$/);
      await events.waitForLine(/^ADDED +watched-2 +0 +\d+s$/);
      assertLines(await ok('label', 'cm', 'watched-2', 'suite=other', '--overwrite'), ['configmap/watched-2 labeled']);
      // It left the selector: for that watch it is gone.
      await events.waitForLine(/^DELETED +watched-2 +0 +\d+s$/);
      assertLines(await ok('delete', 'cm', 'watched'), ['configmap "watched" deleted']);
      await events.waitForLine(/^DELETED +watched +2 +\d+s$/);
      const afterDelete = await one.waitForLine(/^watched +2 +\d+s$/, { from: oneStart + 2 });
      assert.ok(afterDelete > oneStart + 1);
      await names.waitForLine(/^configmap\/watched$/, { from: 2 });
      // NAME -w sees nothing of other objects.
      assert.ok(!one.lines().some((l) => l.startsWith('watched-2')), one.stdout());
      assert.ok(!names.lines().some((l) => l.includes('watched-2')), names.stdout());
      await processes.stopAll();
    });

    it('describe prints an object, its labels, annotations and data', async () => {
      await ok('create', '-f', await manifest('described', configMap('described', { namespace: 'e2e-multi', labels: { app: 'demo', tier: 'd' }, data: { greeting: 'hello' } })));
      await ok('annotate', 'cm', 'described', '-n', 'e2e-multi', 'note=hi');
      const blank = version === '1.27' ? [] : [''];
      assertLines(await ok('describe', 'cm', 'described', '-n', 'e2e-multi'), [
        'Name:         described',
        'Namespace:    e2e-multi',
        'Labels:       app=demo',
        '              tier=d',
        'Annotations:  note: hi',
        '',
        'Data',
        '====',
        'greeting:',
        '----',
        'hello',
        '',
        ...blank,
        'BinaryData',
        '====',
        '',
        'Events:  <none>',
      ]);
      assertLines(await ok('describe', 'namespace', 'e2e-multi'), [
        'Name:         e2e-multi',
        'Labels:       kubernetes.io/metadata.name=e2e-multi',
        'Annotations:  <none>',
        'Status:       Active',
        '',
        'No resource quota.',
        '',
        'No LimitRange resource.',
      ]);
      const missing = await run(1, 'describe', 'cm', 'nope', '-n', 'e2e-multi');
      assertLines(missing.stderr, ['Error from server (NotFound): configmaps "nope" not found']);
    });

    it('label and annotate add, overwrite and remove', async () => {
      await ok('create', '-f', await manifest('tagged', configMap('tagged', { labels: { suite: 'tag' } })));
      assertLines(await ok('label', 'cm', 'tagged', 'color=red'), ['configmap/tagged labeled']);
      const clash = await run(1, 'label', 'cm', 'tagged', 'color=blue');
      assertLines(clash.stderr, ["error: 'color' already has a value (red), and --overwrite is false"]);
      assertLines(await ok('label', 'cm', 'tagged', 'color=blue', '--overwrite'), ['configmap/tagged labeled']);
      assertLines(await ok('label', 'cm', 'tagged', 'color=blue', '--overwrite'), ['configmap/tagged not labeled']);
      assertLines(await ok('get', 'cm', '-l', 'color=blue', '--show-labels'), ['NAME     DATA   AGE   LABELS', 'tagged   0      <AGE>   color=blue,suite=tag']);
      assertLines(await ok('label', 'cm', 'tagged', 'color-'), ['configmap/tagged unlabeled']);
      assertLines(await ok('get', 'cm', 'tagged', '--show-labels'), ['NAME     DATA   AGE   LABELS', 'tagged   0      <AGE>   suite=tag']);

      // kubectl 1.27 printed "annotate" where later versions print "annotated".
      const annotated = version === '1.27' ? 'configmap/tagged annotate' : 'configmap/tagged annotated';
      assertLines(await ok('annotate', 'cm', 'tagged', 'note=hello', 'owner=team-a'), [annotated]);
      assert.equal(await ok('get', 'cm', 'tagged', '-o', 'jsonpath={.metadata.annotations.note} {.metadata.annotations.owner}'), 'hello team-a');
      assertLines(await ok('annotate', 'cm', 'tagged', 'note-'), [annotated]);
      assert.equal(await ok('get', 'cm', 'tagged', '-o', 'jsonpath={.metadata.annotations}'), '{"owner":"team-a"}');
      assertLines(await ok('label', 'cm', '-l', 'suite=tag', 'batch=yes'), ['configmap/tagged labeled']);
    });

    it('patch --type=json and --type=merge', async () => {
      await ok('create', '-f', await manifest('patched', configMap('patched', { data: { a: '1', b: '2' } })));
      assertLines(await ok('patch', 'cm', 'patched', '--type=json', '-p', '[{"op":"replace","path":"/data/a","value":"one"},{"op":"remove","path":"/data/b"},{"op":"add","path":"/metadata/labels","value":{"p":"json"}}]'), [
        'configmap/patched patched',
      ]);
      assert.equal(await ok('get', 'cm', 'patched', '-o', 'jsonpath={.data} {.metadata.labels}'), '{"a":"one"} {"p":"json"}');
      assertLines(await ok('patch', 'cm', 'patched', '--type=merge', '-p', '{"data":{"c":"3","a":null},"metadata":{"labels":{"p":"merge"}}}'), ['configmap/patched patched']);
      assert.equal(await ok('get', 'cm', 'patched', '-o', 'jsonpath={.data} {.metadata.labels}'), '{"c":"3"} {"p":"merge"}');
      assertLines(await ok('patch', 'cm', 'patched', '--type=merge', '-p', '{"data":{"c":"3"}}'), ['configmap/patched patched (no change)']);
      const missing = await run(1, 'patch', 'cm', 'nope', '--type=merge', '-p', '{"data":{"c":"3"}}');
      assertLines(missing.stderr, ['Error from server (NotFound): configmaps "nope" not found']);
      // A JSON patch that does not apply (removing a missing key, a failed test) is upstream's bare 422.
      for (const op of ['{"op":"remove","path":"/data/nosuch"}', '{"op":"test","path":"/data/c","value":"4"}']) {
        const failed = await run(1, 'patch', 'cm', 'patched', '--type=json', '-p', `[${op}]`);
        assertLines(failed.stderr, ['The request is invalid: the server rejected our request due to an error in our request']);
      }
    });

    it('replace writes a whole object; replacing from a stale copy is a Conflict', async () => {
      await ok('create', '-f', await manifest('replaced', configMap('replaced', { data: { v: 'first' } })));
      const current = await ok('get', 'cm', 'replaced', '-o', 'yaml');
      assert.match(current, /^ {2}resourceVersion: "\d+"$/m);
      const file = await manifest('replaced-edit', current.replace('v: first', 'v: second'));
      assertLines(await ok('replace', '-f', file), ['configmap/replaced replaced']);
      assert.equal(await ok('get', 'cm', 'replaced', '-o', 'jsonpath={.data.v}'), 'second');
      // The file still carries the resourceVersion it was read at.
      const stale = await run(1, 'replace', '-f', file);
      assertLines(stale.stdout, []);
      assertLines(stale.stderr, [`Error from server (Conflict): error when replacing "${file}": Operation cannot be fulfilled on configmaps "replaced": ${CONFLICT}`]);
    });

    it('delete by name, by label, --all, and one held by a finalizer until a patch removes it', async () => {
      await ok('create', '-f', await manifest('e2e-delete', namespace('e2e-delete')));
      const ns = ['-n', 'e2e-delete'];
      const secret = (name: string): string => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}\n  namespace: e2e-delete\n`;
      await ok(
        'create',
        '-f',
        await manifest(
          'deletable',
          configMap('d-1', { namespace: 'e2e-delete', labels: { group: 'x' } }),
          configMap('d-2', { namespace: 'e2e-delete', labels: { group: 'x' } }),
          configMap('d-3', { namespace: 'e2e-delete' }),
          secret('s-1'),
          secret('s-2'),
        ),
      );
      assertLines(await ok('delete', 'cm', 'd-3', ...ns), ['configmap "d-3" deleted']);
      assertLines(await ok('delete', 'cm', '-l', 'group=x', ...ns), ['configmap "d-1" deleted', 'configmap "d-2" deleted']);
      // Secrets for --all: controllers (root CA publisher) put a configmap into every namespace, but no secret.
      assertLines(await ok('delete', 'secrets', '--all', ...ns), ['secret "s-1" deleted', 'secret "s-2" deleted']);
      const empty = await run(0, 'get', 'secrets', ...ns);
      assertLines(empty.stdout, []);
      assertLines(empty.stderr, ['No resources found in e2e-delete namespace.']);
      const missing = await run(1, 'delete', 'cm', 'd-3', ...ns);
      assertLines(missing.stderr, ['Error from server (NotFound): configmaps "d-3" not found']);

      await ok('create', '-f', await manifest('held', configMap('held', { namespace: 'e2e-delete', finalizers: ['example.com/hold'] })));
      assertLines(await ok('delete', 'cm', 'held', ...ns, '--wait=false'), ['configmap "held" deleted']);
      // Still there, marked for deletion, until its finalizer is gone.
      assertLines(await ok('get', 'cm', 'held', ...ns), ['NAME   DATA   AGE', 'held   0      <AGE>']);
      assert.match(await ok('get', 'cm', 'held', ...ns, '-o', 'jsonpath={.metadata.deletionTimestamp} {.metadata.finalizers}'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \["example\.com\/hold"\]$/);

      // A delete that waits: it returns once the object is really gone.
      const waiting = background('delete', 'cm', 'held', ...ns, '--timeout=60s', '-v=6');
      await waiting.waitForLine(/DELETE.*configmaps\/held.*200 OK|"DELETE".*configmaps\/held.*"200 OK"/, { stream: 'stderr' });
      assertLines(await ok('patch', 'cm', 'held', ...ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]'), ['configmap/held patched']);
      const exit = await waiting.waitForExit(30_000);
      assert.equal(exit.code, 0, waiting.stderr());
      assertLines(waiting.stdout(), ['configmap "held" deleted']);
      const gone = await run(1, 'get', 'cm', 'held', ...ns);
      assertLines(gone.stderr, ['Error from server (NotFound): configmaps "held" not found']);
    });

    it('create namespace (protobuf from kubectl 1.32 and later)', async () => {
      const name = `e2e-ns-${version.replace('.', '-')}`;
      const created = await kubectl('create', 'namespace', name);
      assert.equal(created.code, 0, created.stderr);
      assertLines(created.stdout, [`namespace/${name} created`]);
      assertLines(await ok('get', 'ns', name, '--show-labels'), ['NAME          STATUS   AGE   LABELS', `${name}   Active   <AGE>   kubernetes.io/metadata.name=${name}`]);
      const again = await kubectl('create', 'namespace', name);
      assert.equal(again.code, 1);
      assertLines(again.stderr, [`Error from server (AlreadyExists): namespaces "${name}" already exists`]);
    });

    it('--dry-run=server stores nothing', async () => {
      const dry = await manifest('dry', configMap('dry', { data: { a: 'b' } }));
      assertLines(await ok('create', '-f', dry, '--dry-run=server'), ['configmap/dry created (server dry run)']);
      const absent = await run(1, 'get', 'cm', 'dry');
      assertLines(absent.stdout, []);
      assertLines(absent.stderr, ['Error from server (NotFound): configmaps "dry" not found']);
      assert.match(await ok('create', '-f', dry, '--dry-run=server', '-o', 'jsonpath={.metadata.uid}'), /^[0-9a-f-]{36}$/);

      await ok('create', '-f', await manifest('kept', configMap('kept', { labels: { keep: 'yes' }, data: { a: 'b' } })));
      assertLines(await ok('label', 'cm', 'kept', 'x=y', '--dry-run=server'), ['configmap/kept labeled (server dry run)']);
      // kubectl patch prints no dry-run suffix (its printer drops it), upstream as here.
      assertLines(await ok('patch', 'cm', 'kept', '--type=merge', '-p', '{"data":{"a":"c"}}', '--dry-run=server'), ['configmap/kept patched']);
      assertLines(await ok('delete', 'cm', 'kept', '--dry-run=server'), ['configmap "kept" deleted (server dry run)']);
      assertLines(await ok('get', 'cm', 'kept', '--show-labels'), ['NAME   DATA   AGE   LABELS', 'kept   1      <AGE>   keep=yes']);
      assert.equal(await ok('get', 'cm', 'kept', '-o', 'jsonpath={.data.a}'), 'b');
    });

    it('create pdb, priorityclass and rolebinding: their tables and their validation', async () => {
      const ns = ['-n', 'e2e-multi'];
      await ok('create', 'pdb', 'budget', ...ns, '--selector=app=x', '--min-available=1');
      await ok('create', 'pdb', 'budget-pct', ...ns, '--selector=app=x', '--max-unavailable=50%');
      assertLines(await ok('get', 'pdb', ...ns), [
        'NAME         MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE',
        'budget       1               N/A               0                     <AGE>',
        'budget-pct   N/A             50%               0                     <AGE>',
      ]);
      const tooMuch = await run(1, 'create', 'pdb', 'over', ...ns, '--selector=app=x', '--max-unavailable=150%');
      assertLines(tooMuch.stderr, [
        'error: failed to create poddisruptionbudgets: PodDisruptionBudget.policy "over" is invalid: spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
      ]);

      await ok('create', 'priorityclass', 'e2e-high', '--value=1000', '--description=high');
      assertLines(await ok('get', 'priorityclass', 'e2e-high'), [
        'NAME       VALUE   GLOBAL-DEFAULT   AGE<ANY>PREEMPTIONPOLICY',
        'e2e-high   1000    false            <AGE> PreemptLowerPriority',
      ]);
      const reserved = await run(1, 'create', 'priorityclass', 'system-e2e', '--value=10');
      assertLines(reserved.stderr, [
        `error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "system-e2e" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-e2e is not a known system priority class`,
      ]);
      const tooHigh = await run(1, 'create', 'priorityclass', 'e2e-huge', '--value=2000000000');
      assertLines(tooHigh.stderr, [
        'error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "e2e-huge" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
      ]);
      const changed = await run(1, 'patch', 'priorityclass', 'e2e-high', '--type=merge', '-p', '{"value":5}');
      assertLines(changed.stderr, ['The PriorityClass "e2e-high" is invalid: value: Forbidden: may not be changed in an update.']);

      await ok('create', 'rolebinding', 'readers', ...ns, '--clusterrole=view', '--user=alice', '--group=devs', '--serviceaccount=e2e-multi:robot');
      assertLines(await ok('get', 'rolebinding', 'readers', ...ns, '-o', 'wide'), [
        'NAME      ROLE               AGE<ANY>USERS   GROUPS   SERVICEACCOUNTS',
        'readers   ClusterRole/view   <AGE> alice   devs     e2e-multi/robot',
      ]);

      const unknownResource = await run(1, 'create', 'quota', 'q', ...ns, '--hard=pods=1,bogus=1');
      assertLines(unknownResource.stderr, [
        'error: failed to create quota: ResourceQuota "q" is invalid: [spec.hard[bogus]: Invalid value: "bogus": must be a standard resource type or fully qualified, spec.hard[bogus]: Invalid value: "bogus": must be a standard resource for quota]',
      ]);
      const badScope = await run(1, 'create', 'quota', 'q', ...ns, '--hard=secrets=1', '--scopes=BestEffort');
      assertLines(badScope.stderr, [
        'error: failed to create quota: ResourceQuota "q" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource',
      ]);
    });

    it('prints the exact error lines for NotFound, AlreadyExists, Invalid, Conflict and an unknown resource', async () => {
      const notFound = await run(1, 'get', 'configmap', 'nope');
      assertLines(notFound.stdout, []);
      assertLines(notFound.stderr, ['Error from server (NotFound): configmaps "nope" not found']);
      const notFoundDeploy = await run(1, 'get', 'deployment', 'nope', '-n', 'e2e-multi');
      assertLines(notFoundDeploy.stderr, ['Error from server (NotFound): deployments.apps "nope" not found']);
      // On a NotFound, kubectl asks whether the namespace exists, and says so when it does not.
      const noNamespace = await run(1, 'get', 'cm', 'x', '-n', 'does-not-exist');
      assertLines(noNamespace.stderr, ['Error from server (NotFound): namespaces "does-not-exist" not found']);

      const exists = await manifest('exists', configMap('exists'));
      await ok('create', '-f', exists);
      const already = await run(1, 'create', '-f', exists);
      assertLines(already.stderr, [`Error from server (AlreadyExists): error when creating "${exists}": configmaps "exists" already exists`]);

      const bad = await manifest('bad', configMap('Bad_Name'));
      const invalid = await run(1, 'create', '-f', bad);
      assertLines(invalid.stdout, []);
      assertLines(invalid.stderr, [`The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`]);
      const invalidDry = await run(1, 'create', '-f', bad, '--dry-run=server');
      assertLines(invalidDry.stderr, [`The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`]);

      const stale = await manifest('stale', (await ok('get', 'cm', 'exists', '-o', 'yaml')).replace(/^ {2}resourceVersion: "\d+"$/m, '  resourceVersion: "1"'));
      const conflict = await run(1, 'replace', '-f', stale);
      assertLines(conflict.stderr, [`Error from server (Conflict): error when replacing "${stale}": Operation cannot be fulfilled on configmaps "exists": ${CONFLICT}`]);

      const unknown = await run(1, 'get', 'foos');
      assertLines(unknown.stdout, []);
      assertLines(unknown.stderr, ['error: the server doesn\'t have a resource type "foos"']);
    });
  });
}
