/**
 * Debian's python3-kubernetes (the official Python client) against k8ts:
 * create from YAML, list, watch, merge and JSON patches, and its errors. It is
 * installed for Debian's interpreter, so the scripts run with /usr/bin/python3
 * (the `python3` first on PATH may be another build without it).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { ProcessGroup } from '../kubectl/long-running.js';

const PYTHON = '/usr/bin/python3';
const NS = 'py-client';

/** Every script starts so: the client configured from $KUBECONFIG, and `out` printing one JSON line. */
const PRELUDE = `
import json, os, sys
from kubernetes import client, config, utils, watch
from kubernetes.client.rest import ApiException
config.load_kube_config(config_file=os.environ['KUBECONFIG'])
api = client.ApiClient()
core = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
def out(**kw):
    print(json.dumps(kw), flush=True)
def merge_patch(path, body, response_type):
    # The typed patch methods send a dict as a strategic merge patch; a JSON merge patch goes through call_api.
    return api.call_api(path, 'PATCH', header_params={'Content-Type': 'application/merge-patch+json', 'Accept': 'application/json'},
                        body=body, response_type=response_type, auth_settings=['BearerToken'], _return_http_data_only=True)
`;

describe('python3-kubernetes against k8ts', () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  const processes = new ProcessGroup();
  let scripts = 0;

  const env = (): NodeJS.ProcessEnv => ({ ...process.env, KUBECONFIG: cluster.kubeconfig, PYTHONDONTWRITEBYTECODE: '1' });
  const writeScript = async (body: string): Promise<string> => {
    const path = join(cluster.workDir, `script-${++scripts}.py`);
    await writeFile(path, `${PRELUDE}\n${body}\n`);
    return path;
  };
  /** Run a script to completion; resolves with the JSON objects it printed, one a line. */
  const python = async (body: string): Promise<Record<string, unknown>[]> => {
    const path = await writeScript(body);
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(PYTHON, [path], { env: env(), timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      });
    });
    assert.equal(code, 0, `python exited ${code}:\n${stderr}${stdout}`);
    return stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };

  before(async () => {
    cluster = await startLeanCluster('python-client');
    kubectl = newKubectl('1.33', cluster.kubeconfig);
  });
  after(async () => {
    await processes.stopAll();
    await cluster?.stop();
  });

  it('creates the documents of a YAML file with utils.create_from_yaml and the typed API', async () => {
    const manifest = join(cluster.workDir, 'objects.yaml');
    await writeFile(
      manifest,
      `apiVersion: v1
kind: Namespace
metadata:
  name: ${NS}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: from-yaml
  namespace: ${NS}
  labels: {source: yaml}
data:
  greeting: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${NS}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
`,
    );
    const results = await python(`
created = utils.create_from_yaml(api, ${JSON.stringify(manifest)})
for group in created:
    for o in (group if isinstance(group, list) else [group]):
        out(kind=o.kind, name=o.metadata.name, namespace=o.metadata.namespace, uid=o.metadata.uid, rv=o.metadata.resource_version)
cm = core.create_namespaced_config_map(${JSON.stringify(NS)}, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='typed', labels={'source': 'typed'}), data={'a': 'b'}))
out(kind=cm.kind, name=cm.metadata.name, namespace=cm.metadata.namespace, uid=cm.metadata.uid, rv=cm.metadata.resource_version)
try:
    utils.create_from_yaml(api, ${JSON.stringify(manifest)})
except utils.FailToCreateError as e:
    for f in e.api_exceptions:
        body = json.loads(f.body)
        out(error=f.status, reason=body['reason'], message=body['message'])
`);
    const created = results.filter((r) => r.kind !== undefined);
    assert.deepEqual(
      created.map((r) => `${r.kind}/${r.namespace ?? ''}/${r.name}`),
      ['Namespace//py-client', 'ConfigMap/py-client/from-yaml', 'Deployment/py-client/web', 'ConfigMap/py-client/typed'],
    );
    for (const r of created) {
      assert.match(String(r.uid), /^[0-9a-f-]{36}$/);
      assert.match(String(r.rv), /^\d+$/);
    }
    assert.deepEqual(
      results.filter((r) => r.error !== undefined),
      [
        { error: 409, reason: 'AlreadyExists', message: 'namespaces "py-client" already exists' },
        { error: 409, reason: 'AlreadyExists', message: 'configmaps "from-yaml" already exists' },
        { error: 409, reason: 'AlreadyExists', message: 'deployments.apps "web" already exists' },
      ],
    );
  });

  it('lists with selectors and in pages', async () => {
    const [all, paged, deployments] = await python(`
lst = core.list_namespaced_config_map(${JSON.stringify(NS)}, label_selector='source')
out(kind=lst.kind, rv=lst.metadata.resource_version, names=[i.metadata.name for i in lst.items])
names, token, pages = [], None, 0
while True:
    page = core.list_namespaced_config_map(${JSON.stringify(NS)}, label_selector='source in (yaml,typed)', limit=1, _continue=token)
    names += [i.metadata.name for i in page.items]
    pages += 1
    token = page.metadata._continue
    if not token:
        break
out(names=names, pages=pages)
d = apps.list_deployment_for_all_namespaces(field_selector='metadata.namespace=${NS}')
out(names=[i.metadata.namespace + '/' + i.metadata.name for i in d.items], replicas=[i.spec.replicas for i in d.items])
`);
    assert.equal(all!.kind, 'ConfigMapList');
    assert.match(String(all!.rv), /^\d+$/);
    assert.deepEqual(all!.names, ['from-yaml', 'typed']);
    assert.deepEqual(paged, { names: ['from-yaml', 'typed'], pages: 2 });
    assert.deepEqual(deployments, { names: [`${NS}/web`], replicas: [1] });
  });

  it('watches the ADDED, MODIFIED and DELETED events of changes the test makes', async () => {
    const script = await writeScript(`
lst = core.list_namespaced_config_map(${JSON.stringify(NS)})
out(watching=lst.metadata.resource_version)
w = watch.Watch()
for ev in w.stream(core.list_namespaced_config_map, ${JSON.stringify(NS)}, resource_version=lst.metadata.resource_version, timeout_seconds=60):
    o = ev['object']
    out(type=ev['type'], name=o.metadata.name, data=o.data, rv=o.metadata.resource_version)
    if ev['type'] == 'DELETED' and o.metadata.name == 'watched':
        w.stop()
out(done=True)
`);
    const watcher = processes.start(PYTHON, [script], env());
    await watcher.waitForLine(/^\{"watching": "\d+"\}$/);
    const manifest = join(cluster.workDir, 'watched.yaml');
    await writeFile(manifest, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\n  namespace: ${NS}\ndata:\n  v: "1"\n`);
    await kubectl.ok('create', '-f', manifest);
    await watcher.waitForLine(/"type": "ADDED", "name": "watched"/);
    await kubectl.ok('patch', 'cm', 'watched', '-n', NS, '--type=merge', '-p', '{"data":{"v":"2"}}');
    await watcher.waitForLine(/"type": "MODIFIED", "name": "watched", "data": \{"v": "2"\}/);
    await kubectl.ok('delete', 'cm', 'watched', '-n', NS);
    await watcher.waitForLine(/"type": "DELETED", "name": "watched"/);
    await watcher.waitForLine(/^\{"done": true\}$/);
    const exit = await watcher.waitForExit(15_000);
    assert.equal(exit.code, 0, watcher.stderr());
    const events = watcher
      .lines()
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      // Only the test's own object: the controller manager may publish kube-root-ca.crt in the namespace meanwhile.
      .filter((e) => e.type !== undefined && e.name === 'watched');
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.name}`),
      ['ADDED watched', 'MODIFIED watched', 'DELETED watched'],
    );
    const revisions = events.map((e) => Number(e.rv));
    assert.ok(revisions[0]! < revisions[1]! && revisions[1]! < revisions[2]!, `resourceVersions increase: ${revisions.join(', ')}`);
  });

  it('merge-patches and JSON-patches', async () => {
    const [merged, jsonPatched, scaled] = await python(`
cm = merge_patch('/api/v1/namespaces/${NS}/configmaps/from-yaml', {'metadata': {'labels': {'patched': 'merge'}}, 'data': {'extra': 'yes'}}, 'V1ConfigMap')
out(labels=cm.metadata.labels, data=cm.data)
cm = core.patch_namespaced_config_map('from-yaml', ${JSON.stringify(NS)}, [{'op': 'replace', 'path': '/data/greeting', 'value': 'hi'}, {'op': 'remove', 'path': '/data/extra'}])
out(data=cm.data)
d = merge_patch('/apis/apps/v1/namespaces/${NS}/deployments/web', {'spec': {'replicas': 3}}, 'V1Deployment')
out(replicas=d.spec.replicas, generation=d.metadata.generation)
`);
    assert.deepEqual(merged, { labels: { source: 'yaml', patched: 'merge' }, data: { greeting: 'hello', extra: 'yes' } });
    assert.deepEqual(jsonPatched, { data: { greeting: 'hi' } });
    assert.deepEqual(scaled, { replicas: 3, generation: 2 });
    assert.equal(await kubectl.ok('get', 'cm', 'from-yaml', '-n', NS, '-o', 'jsonpath={.data.greeting}'), 'hi');
  });

  it('raises ApiException with upstream Status bodies for NotFound and Conflict', async () => {
    const [missing, conflict] = await python(`
try:
    core.read_namespaced_config_map('nope', ${JSON.stringify(NS)})
except ApiException as e:
    out(status=e.status, body=json.loads(e.body))
cm = core.read_namespaced_config_map('typed', ${JSON.stringify(NS)})
cm.data = {'a': 'newer'}
core.replace_namespaced_config_map('typed', ${JSON.stringify(NS)}, cm)
cm.data = {'a': 'stale'}
try:
    core.replace_namespaced_config_map('typed', ${JSON.stringify(NS)}, cm)
except ApiException as e:
    body = json.loads(e.body)
    out(status=e.status, reason=body['reason'], message=body['message'])
`);
    assert.deepEqual(missing, {
      status: 404,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "nope" not found',
        reason: 'NotFound',
        details: { name: 'nope', kind: 'configmaps' },
        code: 404,
      },
    });
    assert.deepEqual(conflict, {
      status: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on configmaps "typed": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('raises ApiException 422 for a bad ConfigMap key, a change of an immutable one and a TLS Secret without its keys', async () => {
    const [badKey, immutable, tls] = await python(`
def invalid(fn):
    try:
        fn()
        out(accepted=True)
    except ApiException as e:
        body = json.loads(e.body)
        out(status=e.status, reason=body['reason'], message=body['message'], causes=[c['field'] for c in body['details']['causes']])
invalid(lambda: core.create_namespaced_config_map(${JSON.stringify(NS)}, {'metadata': {'name': 'bad-key'}, 'data': {'a b': 'v'}}))
core.create_namespaced_config_map(${JSON.stringify(NS)}, {'metadata': {'name': 'frozen'}, 'immutable': True, 'data': {'a': '1'}})
invalid(lambda: merge_patch('/api/v1/namespaces/${NS}/configmaps/frozen', {'data': {'a': '2'}}, 'V1ConfigMap'))
invalid(lambda: core.create_namespaced_secret(${JSON.stringify(NS)}, {'metadata': {'name': 'tls'}, 'type': 'kubernetes.io/tls', 'data': {'tls.crt': ''}}))
`);
    assert.deepEqual(badKey, {
      status: 422,
      reason: 'Invalid',
      message:
        `ConfigMap "bad-key" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' ` +
        `(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      causes: ['data[a b]'],
    });
    assert.deepEqual(immutable, {
      status: 422,
      reason: 'Invalid',
      message: 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
      causes: ['data'],
    });
    assert.deepEqual(tls, { status: 422, reason: 'Invalid', message: 'Secret "tls" is invalid: data[tls.key]: Required value', causes: ['data[tls.key]'] });
  });
});
