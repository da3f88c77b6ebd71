/**
 * Server-side field validation as real kubectl sees it: kubectl 1.27+ sends
 * `?fieldValidation=Strict` (or Warn, or Ignore, from `--validate`) and
 * relies on the server to reject, report or drop unknown and duplicate
 * fields. The lines asserted here are what kubectl prints against upstream.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { TestCluster } from './kubectl/cluster.js';
import { startLeanCluster } from './kubectl/lean-cluster.js';
import { newKubectl, type Kubectl, type KubectlVersion } from './testing/kubectl.js';

const lease = (name: string, spec: string): string => `apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: ${name}
spec:
  holderIdentity: me
${spec}`;

describe('field validation, with real kubectl', () => {
  let dir: string;
  let cluster: TestCluster | undefined;
  let kubeconfig: string;

  before(async () => {
    // The API server alone (lean-cluster.ts): field validation is all its own.
    cluster = await startLeanCluster('field-validation', { defaultServiceAccount: false });
    dir = cluster.workDir;
    kubeconfig = cluster.kubeconfig;
  });

  after(async () => {
    await cluster?.stop();
  });

  /** POST a body as is, with the admin's client certificate from the kubeconfig. */
  async function post(path: string, contentType: string, body: string): Promise<{ code: number; warnings: string[]; body: string }> {
    const config = parseYaml(await readFile(kubeconfig, 'utf8')) as {
      clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
      users: Array<{ user: { 'client-certificate-data': string; 'client-key-data': string } }>;
    };
    const cluster = config.clusters[0]!.cluster;
    const user = config.users[0]!.user;
    const b64 = (s: string): Buffer => Buffer.from(s, 'base64');
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, cluster.server),
        {
          method: 'POST',
          ca: b64(cluster['certificate-authority-data']),
          cert: b64(user['client-certificate-data']),
          key: b64(user['client-key-data']),
          headers: { 'content-type': contentType, accept: 'application/json' },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            const header = res.headers.warning;
            const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
            const warnings = values.flatMap((v) => [...v.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]!}"`) as string));
            resolve({ code: res.statusCode ?? 0, warnings, body: text });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('a YAML body: duplicate keys are reported by line, as goyaml reports them', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fv-yaml-a\n  name: fv-yaml\ndata:\n  a: b\n  a: c\nfoo: 1\n';
    const path = '/api/v1/namespaces/default/configmaps';
    const strict = await post(`${path}?fieldValidation=Strict`, 'application/yaml', yaml);
    assert.equal(strict.code, 400, strict.body);
    assert.equal(
      (JSON.parse(strict.body) as { message: string }).message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map\n  line 8: key "a" already set in map, unknown field "foo"',
    );
    const warn = await post(path, 'application/yaml', yaml);
    assert.equal(warn.code, 201, warn.body);
    assert.deepEqual(warn.warnings, ['line 5: key "name" already set in map', 'line 8: key "a" already set in map', 'unknown field "foo"']);
    const created = JSON.parse(warn.body) as { metadata: { name: string }; data: unknown; foo?: unknown };
    assert.equal(created.metadata.name, 'fv-yaml');
    assert.deepEqual(created.data, { a: 'c' });
    assert.equal(created.foo, undefined);
  });

  it('a bad fieldValidation value is a 422 naming the options kind', async () => {
    const r = await post('/api/v1/namespaces/default/configmaps?fieldValidation=strict', 'application/json', '{}');
    assert.equal(r.code, 422, r.body);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });

  const versions: KubectlVersion[] = ['1.33', '1.27'];
  for (const version of versions) {
    describe(`kubectl ${version}`, () => {
      let kubectl: Kubectl;
      const prefix = `fv-${version.replace('.', '-')}`;
      before(() => {
        kubectl = newKubectl(version, kubeconfig);
      });

      async function manifest(name: string, text: string): Promise<string> {
        const file = join(dir, `${prefix}-${name}.yaml`);
        await writeFile(file, text);
        return file;
      }

      async function leaseSpec(name: string): Promise<unknown> {
        return (JSON.parse(await kubectl.ok('get', 'lease', name, '-o', 'json')) as { spec: unknown }).spec;
      }

      it('create -f of a manifest with an unknown field fails with the strict decoding error', async () => {
        const file = await manifest('strict', lease(`${prefix}-strict`, '  foo: bar\n'));
        const r = await kubectl('create', '-f', file);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(
          r.stderr,
          `Error from server (BadRequest): error when creating "${file}": Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.foo"\n`,
        );
        const get = await kubectl('get', 'lease', `${prefix}-strict`);
        assert.match(get.stderr, /NotFound/);
      });

      it('lists every unknown field, metadata included, in the order kubectl sends them', async () => {
        const file = await manifest('several', lease(`${prefix}-several`, '  foo: 1\n  bar: 2\n').replace('metadata:\n', 'metadata:\n  extra: x\n'));
        const r = await kubectl('create', '-f', file);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(
          r.stderr,
          `Error from server (BadRequest): error when creating "${file}": Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "metadata.extra", unknown field "spec.bar", unknown field "spec.foo"\n`,
        );
      });

      it('--validate=warn prints a warning and creates the object without the field', async () => {
        const name = `${prefix}-warn`;
        const file = await manifest('warn', lease(name, '  foo: bar\n'));
        const r = await kubectl('create', '-f', file, '--validate=warn');
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stderr, 'Warning: unknown field "spec.foo"\n');
        assert.equal(r.stdout, `lease.coordination.k8s.io/${name} created\n`);
        assert.deepEqual(await leaseSpec(name), { holderIdentity: 'me' });
      });

      it('--validate=false creates the object without the field, silently', async () => {
        const name = `${prefix}-ignore`;
        const file = await manifest('ignore', lease(name, '  foo: bar\n'));
        const r = await kubectl('create', '-f', file, '--validate=false');
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stderr, '');
        assert.equal(r.stdout, `lease.coordination.k8s.io/${name} created\n`);
        assert.deepEqual(await leaseSpec(name), { holderIdentity: 'me' });
      });

      it('a value of the wrong type fails whatever --validate says', async () => {
        const file = await manifest('type', lease(`${prefix}-type`, '  leaseDurationSeconds: "15"\n'));
        for (const validate of ['--validate=strict', '--validate=false']) {
          const r = await kubectl('create', '-f', file, validate);
          assert.equal(r.code, 1, r.stderr);
          assert.equal(
            r.stderr,
            `Error from server (BadRequest): error when creating "${file}": Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32\n`,
          );
        }
      });

      it('replace -f checks the new object the same way', async () => {
        const name = `${prefix}-replace`;
        await kubectl.ok('create', '-f', await manifest('replace', lease(name, '')));
        const current = JSON.parse(await kubectl.ok('get', 'lease', name, '-o', 'json')) as { spec: Record<string, unknown> };
        current.spec.foo = 'bar';
        const file = join(dir, `${prefix}-replace.json`);
        await writeFile(file, JSON.stringify(current));
        const strict = await kubectl('replace', '-f', file);
        assert.equal(strict.code, 1, strict.stderr);
        assert.equal(
          strict.stderr,
          `Error from server (BadRequest): error when replacing "${file}": Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.foo"\n`,
        );
        const warn = await kubectl('replace', '-f', file, '--validate=warn');
        assert.equal(warn.code, 0, warn.stderr);
        assert.equal(warn.stderr, 'Warning: unknown field "spec.foo"\n');
        assert.deepEqual(await leaseSpec(name), { holderIdentity: 'me' });
      });

      it('patch warns about unknown fields (the default, Warn) and drops them; a wrong type is a 422', async () => {
        const name = `${prefix}-patch`;
        await kubectl.ok('create', '-f', await manifest('patch', lease(name, '')));
        const merge = await kubectl('patch', 'lease', name, '--type=merge', '-p', '{"spec":{"holderIdentity":"you","foo":1}}');
        assert.equal(merge.code, 0, merge.stderr);
        assert.equal(merge.stderr, 'Warning: unknown field "spec.foo"\n');
        assert.equal(merge.stdout, `lease.coordination.k8s.io/${name} patched\n`);
        assert.deepEqual(await leaseSpec(name), { holderIdentity: 'you' });

        const json = await kubectl('patch', 'lease', name, '--type=json', '-p', '[{"op":"replace","path":"/spec/holderIdentity","value":"them","x":1}]');
        assert.equal(json.code, 0, json.stderr);
        assert.equal(json.stderr, 'Warning: json patch unknown field "[0].x"\n');
        assert.deepEqual(await leaseSpec(name), { holderIdentity: 'them' });

        const wrong = await kubectl('patch', 'lease', name, '--type=merge', '-p', '{"spec":{"leaseDurationSeconds":"x"}}');
        assert.equal(wrong.code, 1, wrong.stderr);
        assert.match(
          wrong.stderr,
          /^The request is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"coordination\.k8s\.io\/v1\\",\\"kind\\":\\"Lease\\",.*\}": json: cannot unmarshal string into Go struct field LeaseSpec\.spec\.leaseDurationSeconds of type int32\n$/,
        );
        // A strategic merge patch (kubectl's default, and what a client-side apply sends) is
        // decoded by the unstructured converter upstream: no struct field in its words.
        const strategic = await kubectl('patch', 'lease', name, '-p', '{"spec":{"leaseDurationSeconds":"x"}}');
        assert.equal(strategic.code, 1, strategic.stderr);
        assert.equal(
          strategic.stderr,
          'The request is invalid: patch: Invalid value: "map[spec:map[leaseDurationSeconds:x]]": json: cannot unmarshal string into Go value of type int32\n',
        );
      });

      it('a raw JSON body: duplicate fields are strict errors too, and the last one wins', async () => {
        const file = join(dir, `${prefix}-dup.json`);
        await writeFile(
          file,
          `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"${prefix}-dup-a","name":"${prefix}-dup"},"spec":{"holderIdentity":"a","foo":1}}`,
        );
        const path = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
        const strict = await kubectl('create', '--raw', `${path}?fieldValidation=Strict`, '-f', file);
        assert.equal(strict.code, 1, strict.stderr);
        assert.equal(
          strict.stderr,
          'Error from server (BadRequest): Lease in version "v1" cannot be handled as a Lease: strict decoding error: duplicate field "metadata.name", unknown field "spec.foo"\n',
        );
        const warn = await kubectl('create', '--raw', path, '-f', file);
        assert.equal(warn.code, 0, warn.stderr);
        assert.equal(warn.stderr, 'Warning: duplicate field "metadata.name"\nWarning: unknown field "spec.foo"\n');
        assert.deepEqual(await leaseSpec(`${prefix}-dup`), { holderIdentity: 'a' });
      });
    });
  }
});
