/**
 * Strategic merge patch end to end: what kubectl sends as
 * application/strategic-merge-patch+json (client-side apply's three-way
 * patch, `patch`, `edit`, `set image|env`, `rollout restart|pause|resume`) and
 * `scale` and `rollout undo` beside them, run by one test file per kubectl
 * version against an API server of its own. No deployment controller runs,
 * so assertions are on the stored objects, and `rollout undo` reads
 * ReplicaSets made by hand as the controller would make them (owned by the
 * deployment, with a revision annotation).
 */
import assert from 'node:assert/strict';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { assertLines } from '../kubectl/output.js';
import { newKubectl, type Kubectl, type KubectlResult, type KubectlVersion } from '../testing/kubectl.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

interface Container {
  name: string;
  image: string;
  env?: Array<{ name: string; value?: string }>;
  ports?: Array<{ containerPort: number; protocol?: string }>;
}
interface Deployment {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    replicas: number;
    paused?: boolean;
    strategy?: Record<string, unknown>;
    template: { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: { containers: Container[]; volumes?: unknown[] } };
  };
}

/** The deployment of the first apply. */
const WEB_V1 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
    tier: front
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.25
        env:
        - name: A
          value: "1"
        - name: B
          value: "2"
        ports:
        - containerPort: 80
      - name: sidecar
        image: busybox:1.36
        command: ["sleep", "3600"]
      volumes:
      - name: cache
        emptyDir: {}
`;

/**
 * The same file edited: a label, an env var, the sidecar and the volume dropped; an env var and a port added; a new
 * image; the Recreate strategy (spec.strategy retains only the keys kubectl names, so the defaulted rollingUpdate goes).
 */
const WEB_V2 = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  strategy:
    type: Recreate
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        env:
        - name: C
          value: "3"
        - name: A
          value: "1"
        ports:
        - containerPort: 80
        - containerPort: 443
`;

/** The last-applied-configuration kubectl writes for a file: the file as compact JSON, namespace and empty annotations added. */
function lastApplied(spec: unknown, labels: Record<string, string>): unknown {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { annotations: {}, labels, name: 'web', namespace: 'default' }, spec };
}

const selector = { matchLabels: { app: 'web' } };

/** Run the strategic merge scenarios with kubectl `version` against a server of its own (only the apply round trip with `applyOnly`). */
export function patchingSuite(version: KubectlVersion, options: { applyOnly?: boolean } = {}): void {
  describe(`strategic merge patch with kubectl ${version}`, () => {
    let cluster: TestCluster;
    let kubectl: Kubectl;
    let files = 0;

    const file = async (name: string, text: string): Promise<string> => {
      const path = join(cluster.workDir, `${String(++files).padStart(2, '0')}-${name}`);
      await writeFile(path, text);
      return path;
    };
    const ok = (...args: string[]): Promise<string> => kubectl.ok(...args);
    /** kubectl expected to fail with exit code 1. */
    const fails = async (...args: string[]): Promise<KubectlResult> => {
      const r = await kubectl(...args);
      assert.equal(r.code, 1, `kubectl ${args.join(' ')} exited ${r.code}, expected 1:\n${r.stderr}${r.stdout}`);
      return r;
    };
    const getJson = async <T>(...args: string[]): Promise<T> => JSON.parse(await ok('get', ...args, '-o', 'json')) as T;
    const deployment = (name = 'web'): Promise<Deployment> => getJson<Deployment>('deployment', name);
    const container = (d: Deployment, name: string): Container => {
      const c = d.spec.template.spec.containers.find((x) => x.name === name);
      assert.ok(c !== undefined, `container ${name} in ${JSON.stringify(d.spec.template.spec.containers)}`);
      return c;
    };
    const envOf = (c: Container): string[] => (c.env ?? []).map((e) => `${e.name}=${e.value ?? ''}`);
    const smp = (kind: string, name: string, patch: unknown): Promise<KubectlResult> => kubectl('patch', kind, name, '-p', JSON.stringify(patch));
    /** A strategic merge patch (kubectl's default type) that prints the patched object, saving a `get`. */
    const smpJson = async <T = Deployment>(kind: string, name: string, patch: unknown): Promise<T> => JSON.parse(await ok('patch', kind, name, '-p', JSON.stringify(patch), '-o', 'json')) as T;

    /** The scenarios beyond apply, left out where a version adds little (`applyOnly`). */
    const scenario = (name: string, fn: () => Promise<void>): void => {
      if (options.applyOnly !== true) it(name, fn);
    };

    before(async () => {
      // The Deployment's history here is hand-made (ReplicaSets with chosen revisions), to see exactly what
      // kubectl sends; the deployment and replicaset controllers would write their own, so no controller manager runs
      // (an API server of its own, lean-cluster.ts).
      cluster = await startLeanCluster(`patching-${version}`);
      kubectl = newKubectl(version, cluster.kubeconfig);
    });
    after(async () => {
      await cluster?.stop();
    });

    it('apply, changes by other managers, apply of the edited file: kept and removed fields, last-applied-configuration', async () => {
      const v1 = await file('web-v1.yaml', WEB_V1);
      assertLines(await ok('apply', '-f', v1), ['deployment.apps/web created']);
      let d = await deployment();
      assert.ok(d.metadata.annotations?.[LAST_APPLIED]?.endsWith('}\n'), 'the annotation is JSON and a newline');
      assert.deepEqual(
        JSON.parse(d.metadata.annotations?.[LAST_APPLIED] ?? 'null'),
        lastApplied(
          {
            selector,
            template: {
              metadata: { labels: { app: 'web' } },
              spec: {
                containers: [
                  { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], image: 'nginx:1.25', name: 'web', ports: [{ containerPort: 80 }] },
                  { command: ['sleep', '3600'], image: 'busybox:1.36', name: 'sidecar' },
                ],
                volumes: [{ emptyDir: {}, name: 'cache' }],
              },
            },
          },
          { app: 'web', tier: 'front' },
        ),
      );
      assertLines(await ok('apply', '-f', v1), ['deployment.apps/web unchanged']);

      // Other managers: a label (merge patch), an annotation and an env var (strategic merge patch), the replicas (scale subresource).
      assertLines(await ok('label', 'deployment', 'web', 'owner=ops'), ['deployment.apps/web labeled']);
      assertLines(
        await ok('patch', 'deployment', 'web', '-p', '{"metadata":{"annotations":{"team":"blue"}},"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"FROM_PATCH","value":"p"}]}]}}}}'),
        ['deployment.apps/web patched'],
      );
      assertLines(await ok('scale', 'deployment', 'web', '--replicas=5'), ['deployment.apps/web scaled']);

      const v2 = await file('web-v2.yaml', WEB_V2);
      assertLines(await ok('apply', '-f', v2), ['deployment.apps/web configured']);
      d = await deployment();
      assert.deepEqual(d.metadata.labels, { app: 'web', owner: 'ops' }, 'the label dropped from the file goes, the one set by another manager stays');
      assert.equal(d.metadata.annotations?.team, 'blue');
      assert.equal(d.spec.replicas, 5, 'replicas (in neither file) keep the scaled value');
      assert.deepEqual(
        d.spec.template.spec.containers.map((c) => c.name),
        ['web'],
        'the container dropped from the file goes',
      );
      const web = container(d, 'web');
      assert.equal(web.image, 'nginx:1.27');
      // $setElementOrder puts C before A. FROM_PATCH, which only the server has, goes by where the current list, as
      // upstream edits it in place, has it: deleting B freed the last place, which C took, so FROM_PATCH comes first.
      assert.deepEqual(envOf(web), ['FROM_PATCH=p', 'C=3', 'A=1']);
      assert.deepEqual(web.ports, [
        { containerPort: 80, protocol: 'TCP' },
        { containerPort: 443, protocol: 'TCP' },
      ]);
      assert.equal(d.spec.template.spec.volumes, undefined, 'the volume dropped from the file goes');
      assert.deepEqual(d.spec.strategy, { type: 'Recreate' });
      assert.deepEqual(
        JSON.parse(d.metadata.annotations?.[LAST_APPLIED] ?? 'null'),
        lastApplied(
          {
            selector,
            strategy: { type: 'Recreate' },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: {
                containers: [
                  { env: [{ name: 'C', value: '3' }, { name: 'A', value: '1' }], image: 'nginx:1.27', name: 'web', ports: [{ containerPort: 80 }, { containerPort: 443 }] },
                ],
              },
            },
          },
          { app: 'web' },
        ),
      );
      // The live env list has an item the file lacks, so kubectl sends its $setElementOrder again; nothing moves.
      assertLines(await ok('apply', '-f', v2), ['deployment.apps/web configured']);
      assert.deepEqual(envOf(container(await deployment(), 'web')), ['FROM_PATCH=p', 'C=3', 'A=1']);
    });

    scenario('patch (strategic by default): containers and env by name, $patch: delete, $setElementOrder, $retainKeys', async () => {
      assertLines((await smp('deployment', 'web', { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.29' }] } } } })).stdout, [
        'deployment.apps/web patched',
      ]);
      let d = await deployment();
      assert.equal(container(d, 'web').image, 'nginx:1.29');
      assert.deepEqual(envOf(container(d, 'web')), ['FROM_PATCH=p', 'C=3', 'A=1'], 'the env of the merged container is untouched');

      d = await smpJson('deployment', 'web', { spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'FROM_PATCH', $patch: 'delete' }, { name: 'A', value: 'one' }] }] } } } });
      assert.deepEqual(envOf(container(d, 'web')), ['C=3', 'A=one']);

      // A new container placed first, as kubectl's own patches order it.
      d = await smpJson('deployment', 'web', {
        spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'helper' }, { name: 'web' }], containers: [{ name: 'helper', image: 'busybox:1.36' }] } } },
      });
      assert.deepEqual(
        d.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`),
        ['helper=busybox:1.36', 'web=nginx:1.29'],
      );
      d = await smpJson('deployment', 'web', { spec: { template: { spec: { containers: [{ name: 'helper', $patch: 'delete' }] } } } });
      assert.deepEqual(
        d.spec.template.spec.containers.map((c) => c.name),
        ['web'],
      );

      // spec.strategy has the retainKeys strategy: $retainKeys clears what it does not name.
      d = await smpJson('deployment', 'web', { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2 } } } });
      assert.deepEqual(d.spec.strategy, { rollingUpdate: { maxSurge: 2, maxUnavailable: '25%' }, type: 'RollingUpdate' });
      d = await smpJson('deployment', 'web', { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
      assert.deepEqual(d.spec.strategy, { type: 'Recreate' });
      assertLines((await smp('deployment', 'web', { spec: { strategy: { type: 'Recreate' } } })).stdout, ['deployment.apps/web patched (no change)']);
    });

    scenario('patch errors come back with upstream messages', async () => {
      const noKey = await fails('patch', 'deployment', 'web', '-p', '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}');
      assertLines(noKey.stderr, ['Error from server: map: map[image:x] does not contain declared merge key: name']);
      const badDirective = await fails('patch', 'deployment', 'web', '-p', '{"spec":{"$patch":"bogus"}}');
      assertLines(badDirective.stderr, ['Error from server: unknown patch type: bogus in map: map[$patch:bogus]']);
      const retainKeys = await fails('patch', 'deployment', 'web', '-p', '{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}}');
      assertLines(retainKeys.stderr, ['Error from server (BadRequest): invalid patch format of retainKeys']);
      const wrongType = await fails('patch', 'deployment', 'web', '-p', '{"spec":{"replicas":"x"}}');
      assertLines(wrongType.stderr, [
        // Upstream decodes the patched map with the unstructured converter, whose json fallback names no struct field.
        'The request is invalid: patch: Invalid value: "map[spec:map[replicas:x]]": json: cannot unmarshal string into Go value of type int32',
      ]);
      const missing = await fails('patch', 'deployment', 'nope', '-p', '{"spec":{"paused":true}}');
      assertLines(missing.stderr, ['Error from server (NotFound): deployments.apps "nope" not found']);
    });

    scenario('patch a Pod and a Service; finalizers merge as a set', async () => {
      const pod = await file(
        'pod.yaml',
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: app\n  labels: {app: app}\nspec:\n  containers:\n  - name: app\n    image: busybox:1.36\n    command: ["sleep", "3600"]\n  - name: logger\n    image: busybox:1.36\n',
      );
      assertLines(await ok('apply', '-f', pod), ['pod/app created']);
      const p = await smpJson<{ metadata: { labels: Record<string, string> }; spec: { containers: Container[] } }>('pod', 'app', {
        metadata: { labels: { role: 'db' } },
        spec: { containers: [{ name: 'logger', image: 'busybox:1.37' }] },
      });
      assert.deepEqual(p.metadata.labels, { app: 'app', role: 'db' });
      assert.deepEqual(
        p.spec.containers.map((c) => `${c.name}=${c.image}`),
        ['app=busybox:1.36', 'logger=busybox:1.37'],
      );

      const svc = await file(
        'svc.yaml',
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: front\nspec:\n  selector: {app: web}\n  ports:\n  - {name: http, port: 80}\n  - {name: https, port: 443}\n',
      );
      assertLines(await ok('apply', '-f', svc), ['service/front created']);
      interface Service {
        spec: { clusterIP: string; ports: Array<{ name: string; port: number; targetPort: number | string }> };
      }
      const before = await getJson<Service>('service', 'front');
      assertLines((await smp('service', 'front', { spec: { ports: [{ port: 80, targetPort: 8080 }] } })).stdout, ['service/front patched']);
      let s = await getJson<Service>('service', 'front');
      assert.equal(s.spec.clusterIP, before.spec.clusterIP);
      assert.deepEqual(
        s.spec.ports.map((x) => `${x.name}:${x.port}->${x.targetPort}`),
        ['http:80->8080', 'https:443->443'],
      );
      s = await smpJson<Service>('service', 'front', { spec: { ports: [{ port: 443, $patch: 'delete' }] } });
      assert.deepEqual(
        s.spec.ports.map((x) => x.name),
        ['http'],
      );

      // (apply, not `create configmap`: kubectl 1.32+ sends its typed creates as protobuf.)
      assertLines(await ok('apply', '-f', await file('held.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\ndata:\n  k: v\n')), ['configmap/held created']);
      const finalizers = async (patch: unknown): Promise<string[] | undefined> => (await smpJson<{ metadata: { finalizers?: string[] } }>('configmap', 'held', patch)).metadata.finalizers;
      assert.deepEqual(await finalizers({ metadata: { finalizers: ['example.com/a'] } }), ['example.com/a']);
      // A new item goes before the current ones the patch does not name.
      assert.deepEqual(await finalizers({ metadata: { finalizers: ['example.com/b'] } }), ['example.com/b', 'example.com/a']);
      // The emptied list is gone: finalizers is omitempty, as upstream's Go struct writes it.
      assert.equal(await finalizers({ metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a', 'example.com/b'] } }), undefined);

      // Every patch type's result has that Go shape: an emptied omitempty map is gone, as upstream serves it.
      type Held = { metadata: { labels?: Record<string, string> }; data?: Record<string, string> };
      const held = async (type: string, patch: unknown): Promise<Held> => JSON.parse(await ok('patch', 'configmap', 'held', '--type', type, '-p', JSON.stringify(patch), '-o', 'json')) as Held;
      assert.deepEqual((await held('merge', { metadata: { labels: { a: '1' } } })).metadata.labels, { a: '1' });
      assert.equal((await held('merge', { metadata: { labels: { a: null } } })).metadata.labels, undefined);
      assert.equal((await held('json', [{ op: 'remove', path: '/data/k' }])).data, undefined);
      assert.equal((await held('strategic', { data: { k: 'v' } })).data?.k, 'v');
      assert.equal((await held('strategic', { data: { k: null } })).data, undefined);
    });

    scenario('edit sends a strategic merge patch of what the editor changed', async () => {
      const editor = await file('editor.sh', `#!/bin/sh\nsed -i -e 's/image: nginx:1.29/image: nginx:1.30/' -e 's/^  labels:$/  labels:\\n    edited: "yes"/' "$1"\n`);
      await chmod(editor, 0o755);
      const edit = newKubectl(version, cluster.kubeconfig);
      edit.env.KUBE_EDITOR = editor;
      assertLines(await edit.ok('edit', 'deployment', 'web'), ['deployment.apps/web edited']);
      const d = await deployment();
      assert.equal(d.metadata.labels?.edited, 'yes');
      assert.equal(container(d, 'web').image, 'nginx:1.30');
      // Nothing left to change: the editor's script finds nothing, and kubectl says so.
      const again = await edit('edit', 'deployment', 'web');
      assert.equal(again.code, 0, again.stderr);
      assertLines(again.stderr, ['Edit cancelled, no changes made.']);
    });

    scenario('set image, scale, set env, rollout restart, pause and resume patch the deployment', async () => {
      assertLines(await ok('set', 'image', 'deployment/web', 'web=nginx:1.31'), ['deployment.apps/web image updated']);
      assertLines(await ok('scale', 'deployment/web', '--replicas=2'), ['deployment.apps/web scaled']);
      // set env sends kubectl's two-way patch: the new variable with $setElementOrder, then a $patch: delete.
      assertLines(await ok('set', 'env', 'deployment/web', 'FOO=bar'), ['deployment.apps/web env updated']);
      assertLines(await ok('set', 'env', 'deployment/web', 'C-'), ['deployment.apps/web env updated']);
      let d = await deployment();
      assert.equal(container(d, 'web').image, 'nginx:1.31');
      assert.equal(d.spec.replicas, 2);
      assert.deepEqual(envOf(container(d, 'web')), ['A=one', 'FOO=bar']);

      assertLines(await ok('rollout', 'pause', 'deployment/web'), ['deployment.apps/web paused']);
      assert.equal((await deployment()).spec.paused, true);
      const again = await fails('rollout', 'pause', 'deployment/web');
      assertLines(again.stderr, ['error: deployments.apps "web" is already paused']);
      assertLines(await ok('rollout', 'resume', 'deployment/web'), ['deployment.apps/web resumed']);
      assertLines(await ok('rollout', 'restart', 'deployment/web'), ['deployment.apps/web restarted']);
      d = await deployment();
      assert.equal(d.spec.paused, undefined);
      const restartedAt = d.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'];
      assert.match(restartedAt ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
    });

    scenario('rollout undo sends a JSON patch with the template of the previous revision', async () => {
      const d = await deployment();
      const replicaSet = (revision: number, image: string): string =>
        [
          'apiVersion: apps/v1',
          'kind: ReplicaSet',
          'metadata:',
          `  name: web-rev${revision}`,
          `  labels: {app: web, pod-template-hash: h${revision}}`,
          `  annotations: {deployment.kubernetes.io/revision: "${revision}", note: "revision ${revision}"}`,
          '  ownerReferences:',
          `  - {apiVersion: apps/v1, kind: Deployment, name: web, uid: ${d.metadata.uid}, controller: true, blockOwnerDeletion: true}`,
          'spec:',
          '  replicas: 0',
          `  selector: {matchLabels: {app: web, pod-template-hash: h${revision}}}`,
          '  template:',
          `    metadata: {labels: {app: web, pod-template-hash: h${revision}}}`,
          '    spec:',
          '      containers:',
          '      - name: web',
          `        image: ${image}`,
          '',
        ].join('\n');
      const rs = await file('replicasets.yaml', `${replicaSet(1, 'nginx:1.25')}---\n${replicaSet(2, 'nginx:1.31')}`);
      assertLines(await ok('create', '-f', rs), ['replicaset.apps/web-rev1 created', 'replicaset.apps/web-rev2 created']);

      assertLines(await ok('rollout', 'undo', 'deployment/web'), ['deployment.apps/web rolled back']);
      let undone = await deployment();
      assert.deepEqual(
        undone.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`),
        ['web=nginx:1.25'],
      );
      assert.equal(undone.spec.template.metadata.annotations, undefined, 'the whole template is replaced (restartedAt goes)');
      assert.equal(undone.metadata.annotations?.note, 'revision 1', "the revision's annotations are copied");
      assert.ok(undone.metadata.annotations?.[LAST_APPLIED] !== undefined, 'annotations kubectl skips are kept');

      assertLines(await ok('rollout', 'undo', 'deployment/web', '--to-revision=2'), ['deployment.apps/web rolled back']);
      undone = await deployment();
      assert.equal(container(undone, 'web').image, 'nginx:1.31');
      assert.equal(undone.metadata.annotations?.note, 'revision 2');

      const unknown = await fails('rollout', 'undo', 'deployment/web', '--to-revision=7');
      assertLines(unknown.stderr, ['error: unable to find specified revision 7 in history']);
      await ok('rollout', 'pause', 'deployment/web');
      const paused = await fails('rollout', 'undo', 'deployment/web');
      assertLines(paused.stderr, ["error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"]);
      await ok('rollout', 'resume', 'deployment/web');
    });
  });
}
