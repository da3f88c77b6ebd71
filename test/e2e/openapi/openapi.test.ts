/**
 * OpenAPI as kubectl uses it, against one k8ts API server, with kubectl 1.33,
 * 1.31 and 1.27:
 *
 * - `kubectl explain` reads /openapi/v3 in every one of these versions; with
 *   `--output plaintext-openapiv2` it reads /openapi/v2 (in protobuf) instead.
 *   Field names and types are upstream's; descriptions are empty, as k8ts
 *   copies no upstream prose.
 * - `kubectl create|apply -f` of a `kind: List` fetches /openapi/v2 (protobuf)
 *   and validates every item on the client, since the List kind has no API
 *   path to ask the server's field validation about: an unknown field fails
 *   the whole file with upstream's message before anything is sent.
 * - /openapi/v2 itself: JSON and protobuf, one ETag, 304 on If-None-Match.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiClient, serverUrlOf } from '../testing/api-client.js';
import { newKubectl, type Kubectl, type KubectlVersion } from '../testing/kubectl.js';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { outputLines } from '../kubectl/output.js';

const VERSIONS: readonly KubectlVersion[] = ['1.33', '1.31', '1.27'];
const KUBECTL_V2_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** Fail unless every expected line appears in `output`, in this order (other lines may come between). */
function assertLinesInOrder(output: string, expected: readonly string[]): void {
  const lines = outputLines(output);
  let at = 0;
  for (const want of expected) {
    const found = lines.indexOf(want, at);
    assert.ok(found >= 0, `missing line ${JSON.stringify(want)} (after line ${at}) in:\n${output}`);
    at = found + 1;
  }
}

/** The header kubectl prints for a field through OpenAPI v3; 1.27's template has one blank line fewer. */
function v3Header(version: KubectlVersion, lines: { group?: string; kind: string; version: string; field: string }): string[] {
  return [
    ...(lines.group !== undefined ? [`GROUP:      ${lines.group}`] : []),
    `KIND:       ${lines.kind}`,
    `VERSION:    ${lines.version}`,
    '',
    `FIELD: ${lines.field}`,
    '',
    ...(version === '1.27' ? [] : ['']),
    'DESCRIPTION:',
    '    <empty>',
    'FIELDS:',
  ];
}

const list = (suffix: string, options: { unknownField?: boolean; data?: string } = {}): string => `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: list-settings-${suffix}
  data:
    mode: "${options.data ?? 'one'}"
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: list-web-${suffix}
  spec:
    replicas: 1
    selector:
      matchLabels: {app: web-${suffix}}
    template:
      metadata:
        labels: {app: web-${suffix}}
      spec:
        containers:
        - name: web
          image: nginx
          ports:
          - containerPort: 80${options.unknownField === true ? '\n            hostPortt: 8080' : ''}
`;

describe('OpenAPI with kubectl', () => {
  let cluster: TestCluster;
  let api: ApiClient;
  let file = 0;
  const manifest = async (text: string): Promise<string> => {
    const path = join(cluster.workDir, `manifest-${++file}.yaml`);
    await writeFile(path, text);
    return path;
  };

  before(async () => {
    cluster = await startLeanCluster('openapi');
    api = new ApiClient(serverUrlOf(cluster.kubeconfig), join(cluster.workDir, 'data', 'pki'));
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
  });

  it('/openapi/v2 answers JSON and kubectl\'s protobuf with one ETag, and 304 when it matches', async () => {
    const json = await api.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.equal(json.headers['content-type'], 'application/json');
    const doc = json.json<{ swagger: string; paths: Record<string, unknown>; definitions: Record<string, unknown> }>();
    assert.equal(doc.swagger, '2.0');
    assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']);
    assert.ok(doc.definitions['io.k8s.api.apps.v1.Deployment']);
    const etag = json.headers['etag'];
    assert.match(String(etag), /^"[0-9A-F]{128}"$/);

    const pb = await api.request('GET', '/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT } });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], V2_PROTOBUF);
    assert.equal(pb.headers['etag'], etag);
    assert.equal(pb.headers['vary'], 'Accept-Encoding, Accept');

    const again = await api.request('GET', '/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT, 'if-none-match': String(etag) } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(again.headers['etag'], etag);

    const zipped = await api.request('GET', '/openapi/v2', { headers: { accept: KUBECTL_V2_ACCEPT, 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.ok(Number(zipped.headers['content-length']) < Number(pb.headers['content-length']));

    const refused = await api.request('GET', '/openapi/v2', { headers: { accept: 'application/yaml' } });
    assert.equal(refused.status, 406);
    assert.equal(refused.text, '');
  });

  for (const version of VERSIONS) {
    describe(`kubectl ${version}`, () => {
      let kubectl: Kubectl;
      const suffix = version.replace('.', '');
      before(() => {
        kubectl = newKubectl(version, cluster.kubeconfig);
      });

      it('explain pod.spec.containers lists the fields with their types (OpenAPI v3)', async () => {
        const out = await kubectl.ok('explain', 'pod.spec.containers');
        assert.deepEqual(outputLines(out).slice(0, v3Header(version, { kind: 'Pod', version: 'v1', field: '' }).length), v3Header(version, { kind: 'Pod', version: 'v1', field: 'containers <[]Container>' }));
        assertLinesInOrder(out, [
          '  args\t<[]string>',
          '    <no description>',
          '  command\t<[]string>',
          '  env\t<[]EnvVar>',
          '  envFrom\t<[]EnvFromSource>',
          '  image\t<string>',
          '  imagePullPolicy\t<string>',
          '  lifecycle\t<Lifecycle>',
          '  livenessProbe\t<Probe>',
          '  name\t<string> -required-',
          '  ports\t<[]ContainerPort>',
          '  resources\t<ResourceRequirements>',
          '  securityContext\t<SecurityContext>',
          '  volumeMounts\t<[]VolumeMount>',
          '  workingDir\t<string>',
        ]);
      });

      it('explain --recursive prints the nested fields', async () => {
        const out = await kubectl.ok('explain', 'pod.spec.containers', '--recursive');
        assertLinesInOrder(out, [
          'FIELDS:',
          '  args\t<[]string>',
          '  env\t<[]EnvVar>',
          '    name\t<string> -required-',
          '    value\t<string>',
          '    valueFrom\t<EnvVarSource>',
          '      configMapKeyRef\t<ConfigMapKeySelector>',
          '        key\t<string> -required-',
          '  ports\t<[]ContainerPort>',
          '    containerPort\t<integer> -required-',
          '    protocol\t<string>',
          '  resources\t<ResourceRequirements>',
          '    limits\t<map[string]Quantity>',
        ]);
        assert.ok(!out.includes('<no description>'), 'no descriptions when recursive');
      });

      it('explain --api-version apps/v1 deployment.spec', async () => {
        const out = await kubectl.ok('explain', '--api-version', 'apps/v1', 'deployment.spec');
        const header = v3Header(version, { group: 'apps', kind: 'Deployment', version: 'v1', field: 'spec <DeploymentSpec>' });
        assert.deepEqual(outputLines(out).slice(0, header.length), header);
        assertLinesInOrder(out, [
          '  minReadySeconds\t<integer>',
          '  paused\t<boolean>',
          '  progressDeadlineSeconds\t<integer>',
          '  replicas\t<integer>',
          '  revisionHistoryLimit\t<integer>',
          '  selector\t<LabelSelector> -required-',
          '  strategy\t<DeploymentStrategy>',
          '  template\t<PodTemplateSpec> -required-',
        ]);
      });

      it('explain --output plaintext-openapiv2 reads /openapi/v2 (protobuf)', async () => {
        const out = await kubectl.ok('explain', '--api-version', 'apps/v1', 'deployment.spec', '--recursive', '--output', 'plaintext-openapiv2');
        assertLinesInOrder(out, [
          'KIND:     Deployment',
          'VERSION:  apps/v1',
          '',
          'RESOURCE: spec <Object>',
          'FIELDS:',
          '   minReadySeconds\t<integer>',
          '   replicas\t<integer>',
          '   selector\t<Object>',
          '      matchLabels\t<map[string]string>',
          '   strategy\t<Object>',
          '      rollingUpdate\t<Object>',
          '         maxSurge\t<string>',
          '   template\t<Object>',
          '      spec\t<Object>',
          '         containers\t<[]Object>',
          '            name\t<string>',
        ]);
        const containers = await kubectl.ok('explain', 'pod.spec.containers', '--output', 'plaintext-openapiv2');
        assertLinesInOrder(containers, ['KIND:     Pod', 'VERSION:  v1', '', 'RESOURCE: containers <[]Object>', 'FIELDS:', '   args\t<[]string>', '   name\t<string> -required-', '   ports\t<[]Object>']);
      });

      it('a later run revalidates its cached /openapi/v2 by ETag instead of downloading it again', async () => {
        await kubectl.ok('explain', 'pod.spec', '--output', 'plaintext-openapiv2');
        const again = await kubectl('explain', 'pod.spec', '--output', 'plaintext-openapiv2', '-v=8');
        assert.equal(again.code, 0, again.stderr);
        // The log of the /openapi/v2 round trip: from its URL to the next request's.
        const start = again.stderr.indexOf('/openapi/v2');
        assert.ok(start >= 0, again.stderr);
        const next = again.stderr.slice(start).search(/GET https:|verb="GET"/);
        const v2 = again.stderr.slice(start, next > 0 ? start + next : undefined);
        assert.match(v2, /X-From-Cache: 1/);
        assert.match(v2, /Etag: "[0-9A-F]{128}"/);
      });

      it('create -f and apply -f of a kind: List create every item', async () => {
        const created = await kubectl.ok('create', '-f', await manifest(list(`c${suffix}`)));
        assert.deepEqual(outputLines(created), [`configmap/list-settings-c${suffix} created`, `deployment.apps/list-web-c${suffix} created`]);
        const applied = await kubectl.ok('apply', '-f', await manifest(list(`a${suffix}`)));
        assert.deepEqual(outputLines(applied), [`configmap/list-settings-a${suffix} created`, `deployment.apps/list-web-a${suffix} created`]);
        const mode = await kubectl.ok('get', 'configmap', `list-settings-a${suffix}`, '-o', 'jsonpath={.data.mode}');
        assert.equal(mode, 'one');
      });

      it('an unknown field in a List item fails on the client with upstream\'s message, and nothing is created', async () => {
        const path = await manifest(list(`u${suffix}`, { unknownField: true }));
        for (const verb of ['create', 'apply']) {
          const r = await kubectl(verb, '-f', path);
          assert.equal(r.code, 1, `${verb}: ${r.stderr}${r.stdout}`);
          assert.equal(
            r.stderr,
            `error: error validating "${path}": error validating data: ValidationError(Deployment.spec.template.spec.containers[0].ports[0]): unknown field "hostPortt" in io.k8s.api.core.v1.ContainerPort; if you choose to ignore these errors, turn validation off with --validate=false\n`,
          );
        }
        const missing = await kubectl('get', 'configmap', `list-settings-u${suffix}`);
        assert.equal(missing.code, 1);
        assert.equal(missing.stderr, `Error from server (NotFound): configmaps "list-settings-u${suffix}" not found\n`);
      });

      it('a List item of the wrong type or without a required field fails on the client, each error named', async () => {
        const path = await manifest(`apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: list-typed-${suffix}
  spec:
    replicas: "two"
    template:
      metadata:
        labels: {app: typed}
      spec:
        containers:
        - name: web
          image: nginx
`);
        const r = await kubectl('create', '-f', path);
        assert.equal(r.code, 1, r.stdout);
        assert.equal(
          r.stderr,
          `error: error validating "${path}": error validating data: [` +
            'ValidationError(Deployment.spec.replicas): invalid type for io.k8s.api.apps.v1.DeploymentSpec.replicas: got "string", expected "integer", ' +
            'ValidationError(Deployment.spec): missing required field "selector" in io.k8s.api.apps.v1.DeploymentSpec' +
            ']; if you choose to ignore these errors, turn validation off with --validate=false\n',
        );
      });

      it('--validate=false sends such a List, and the server drops the unknown field', async () => {
        const out = await kubectl.ok('create', '--validate=false', '-f', await manifest(list(`i${suffix}`, { unknownField: true })));
        assert.deepEqual(outputLines(out), [`configmap/list-settings-i${suffix} created`, `deployment.apps/list-web-i${suffix} created`]);
        const ports = await kubectl.ok('get', 'deployment', `list-web-i${suffix}`, '-o', 'jsonpath={.spec.template.spec.containers[0].ports[0]}');
        assert.deepEqual(JSON.parse(ports), { containerPort: 80, protocol: 'TCP' });
      });
    });
  }
});
