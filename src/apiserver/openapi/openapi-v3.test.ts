import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../api/resources.js';
import { groupVersionString, Scheme } from '../../api/scheme.js';
import { loadOpenApiData, type Json, type JsonObject, type OpenApiData } from './openapi-data.js';
import { newOpenApiV3 } from './openapi-v3.js';

const scheme = newBuiltinScheme();
const openapi = newOpenApiV3(scheme);

const parse = (name: string): JsonObject => {
  const doc = openapi.document(name);
  assert.ok(doc, `document ${name}`);
  return JSON.parse(doc.bytes.toString()) as JsonObject;
};
const obj = (v: Json | undefined): JsonObject => {
  assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), `expected an object, got ${JSON.stringify(v)}`);
  return v;
};
const docName = (group: string, version: string): string => (group === '' ? `api/${version}` : `apis/${group}/${version}`);
const PATCH_PARAM_NAMES = (op: JsonObject): string[] =>
  ((op['parameters'] ?? []) as JsonObject[]).filter((p) => p['in'] === 'query').map((p) => String(p['name']));

/** Every string-valued `description` key, outside `properties` maps (where it may be a field's name). */
function descriptions(value: Json, where: string, inPropertyMap = false, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => descriptions(v, `${where}[${i}]`, false, found));
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'description' && !inPropertyMap) found.push(where);
      descriptions(v, `${where}.${k}`, k === 'properties' && !inPropertyMap, found);
    }
  }
  return found;
}

describe('the /openapi/v3 index', () => {
  const index = JSON.parse(openapi.index.bytes.toString()) as { paths: Record<string, { serverRelativeURL: string }> };

  it('lists every served group-version and root document, sorted, with its hash', () => {
    const names = Object.keys(index.paths);
    assert.deepEqual(names, [...names].sort());
    for (const gv of scheme.versions()) assert.ok(names.includes(docName(gv.group, gv.version)), groupVersionString(gv));
    for (const name of ['api', 'apis', 'version', 'apis/apps', 'apis/rbac.authorization.k8s.io']) assert.ok(names.includes(name), name);
    for (const [name, entry] of Object.entries(index.paths)) {
      const doc = openapi.document(name)!;
      assert.equal(entry.serverRelativeURL, `/openapi/v3/${name}?hash=${doc.hash}`);
      assert.match(doc.hash, /^[0-9A-F]{128}$/);
    }
  });

  it('has stable hashes, and a changed document changes only its own', () => {
    const again = newOpenApiV3(newBuiltinScheme());
    assert.equal(again.index.hash, openapi.index.hash);
    assert.deepEqual(again.index.bytes, openapi.index.bytes);

    const data = loadOpenApiData();
    const name = 'io.k8s.api.apps.v1.DeploymentSpec';
    const spec = data.schemas[name]!;
    const changed: OpenApiData = {
      paths: data.paths,
      schemas: { ...data.schemas, [name]: { ...spec, required: ['template'] } },
    };
    const other = newOpenApiV3(scheme, { data: changed });
    assert.notEqual(other.document('apis/apps/v1')!.hash, openapi.document('apis/apps/v1')!.hash);
    assert.notEqual(other.index.hash, openapi.index.hash);
    assert.equal(other.document('api/v1')!.hash, openapi.document('api/v1')!.hash);
    assert.equal(other.document('apis/batch/v1')!.hash, openapi.document('apis/batch/v1')!.hash);
  });

  it('changes a hash when the served version changes', () => {
    assert.notEqual(newOpenApiV3(scheme, { gitVersion: 'v1.33.1' }).document('api/v1')!.hash, openapi.document('api/v1')!.hash);
  });
});

describe('a group-version document', () => {
  it('is OpenAPI 3.0.0 titled Kubernetes, with the server version', () => {
    const doc = parse('api/v1');
    assert.deepEqual(Object.keys(doc), ['openapi', 'info', 'paths', 'components']);
    assert.equal(doc['openapi'], '3.0.0');
    assert.deepEqual(doc['info'], { title: 'Kubernetes', version: 'v1.33.0' });
    assert.deepEqual(obj(obj(doc['components'])['securitySchemes']), { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } });
  });

  it('has a schema with x-kubernetes-group-version-kind for every served kind and list', () => {
    for (const r of scheme.resources()) {
      const schemas = obj(obj(parse(docName(r.group, r.version))['components'])['schemas']);
      // Create-only kinds (Binding, TokenReview, …) have no list.
      const kinds = r.verbs.includes('list') ? [r.kind, r.listKind] : [r.kind];
      for (const kind of kinds) {
        const match = Object.values(schemas).some((s) =>
          ((obj(s)['x-kubernetes-group-version-kind'] ?? []) as JsonObject[]).some(
            (g) => g['group'] === r.group && g['version'] === r.version && g['kind'] === kind,
          ),
        );
        assert.ok(match, `${groupVersionString(r)} ${kind}`);
      }
      // Connect subresources (pods/exec, …) take their *Options as query parameters: upstream has no schema for them.
      for (const sub of r.subresources.filter((s) => !s.kind.kind.endsWith('Options'))) {
        const schemasOfSub = Object.values(schemas).some((s) =>
          ((obj(s)['x-kubernetes-group-version-kind'] ?? []) as JsonObject[]).some((g) => g['kind'] === sub.kind.kind && g['group'] === sub.kind.group),
        );
        assert.ok(schemasOfSub, `${r.resource}/${sub.name} ${sub.kind.kind}`);
      }
    }
  });

  it('contains only schemas its paths reach, all of them present', () => {
    const doc = parse('apis/scheduling.k8s.io/v1');
    const schemas = Object.keys(obj(obj(doc['components'])['schemas']));
    assert.ok(schemas.includes('io.k8s.api.scheduling.v1.PriorityClass'));
    assert.ok(!schemas.includes('io.k8s.api.core.v1.Pod'));
    const text = JSON.stringify(doc);
    for (const ref of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) assert.ok(schemas.includes(ref[1]!), ref[1]);
  });

  it('carries no description anywhere, in the data or the documents', () => {
    const data = loadOpenApiData();
    assert.deepEqual(descriptions(data.paths as Json, 'paths'), []);
    assert.deepEqual(descriptions(data.schemas as Json, 'schemas'), []);
    for (const name of openapi.names) assert.deepEqual(descriptions(parse(name), name), [], name);
    // PriorityClass has a field named description: a property, not prose.
    const pc = obj(obj(obj(parse('apis/scheduling.k8s.io/v1')['components'])['schemas'])['io.k8s.api.scheduling.v1.PriorityClass']);
    assert.deepEqual(obj(obj(pc['properties'])['description']), { type: 'string' });
  });

  it('keeps the strategic merge and apply extensions', () => {
    const schemas = obj(obj(parse('api/v1')['components'])['schemas']);
    const containers = obj(obj(obj(schemas['io.k8s.api.core.v1.PodSpec'])['properties'])['containers']);
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(containers['x-kubernetes-list-type'], 'map');
    assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
    const strategy = obj(obj(obj(obj(obj(parse('apis/apps/v1')['components'])['schemas'])['io.k8s.api.apps.v1.DeploymentSpec'])['properties'])['strategy']);
    assert.deepEqual(strategy, { 'x-kubernetes-patch-strategy': 'retainKeys', allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy' }] });
    assert.deepEqual(obj(schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString']), { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] });
  });
});

describe('operations', () => {
  const paths = obj(parse('api/v1')['paths']);
  const podPath = obj(paths['/api/v1/namespaces/{namespace}/pods/{name}']);

  it('give pods write operations fieldValidation, dryRun and fieldManager', () => {
    for (const method of ['put', 'patch']) {
      for (const p of ['/api/v1/namespaces/{namespace}/pods/{name}', '/api/v1/namespaces/{namespace}/pods/{name}/status']) {
        const names = PATCH_PARAM_NAMES(obj(obj(paths[p])[method]));
        for (const n of ['dryRun', 'fieldManager', 'fieldValidation']) assert.ok(names.includes(n), `${method} ${p} ${n}`);
      }
    }
    const create = obj(obj(paths['/api/v1/namespaces/{namespace}/pods'])['post']);
    assert.ok(PATCH_PARAM_NAMES(create).includes('fieldValidation'));
    assert.equal(obj(podPath['patch'])['x-kubernetes-action'], 'patch');
    assert.deepEqual(obj(podPath['patch'])['x-kubernetes-group-version-kind'], { group: '', kind: 'Pod', version: 'v1' });
  });

  it('give every PATCH operation fieldValidation of its own, which kubectl checks for server-side validation', () => {
    for (const name of openapi.names) {
      for (const [path, item] of Object.entries(obj(parse(name)['paths']))) {
        const patch = obj(item)['patch'];
        if (patch === undefined) continue;
        assert.ok(obj(patch)['x-kubernetes-group-version-kind'], `${path} has a GVK`);
        assert.ok(PATCH_PARAM_NAMES(obj(patch)).includes('fieldValidation'), `${path} patch has fieldValidation`);
      }
    }
  });

  it('accept the four patch types upstream lists for built-in kinds on every PATCH, and never advertise CBOR', () => {
    const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
    for (const name of openapi.names) {
      for (const [path, item] of Object.entries(obj(parse(name)['paths']))) {
        const patch = obj(item)['patch'];
        if (patch === undefined) continue;
        assert.deepEqual(Object.keys(obj(obj(obj(patch)['requestBody'])['content'])), patchTypes, path);
      }
      assert.ok(!openapi.document(name)!.bytes.toString().includes('cbor'), name);
    }
  });

  it('advertise protobuf responses where upstream does', () => {
    const get = obj(obj(obj(podPath['get'])['responses'])['200']);
    assert.deepEqual(Object.keys(obj(get['content'])), ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
  });

  it('inline path parameters as v3 parameters with a schema', () => {
    assert.deepEqual(podPath['parameters'], [
      { name: 'name', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } },
      { name: 'namespace', in: 'path', required: true, schema: { type: 'string', uniqueItems: true } },
      { name: 'pretty', in: 'query', schema: { type: 'string', uniqueItems: true } },
    ]);
  });

  it('serve only the subresources and verbs the scheme lists', () => {
    const names = Object.keys(paths);
    assert.ok(names.includes('/api/v1/namespaces/{namespace}/pods/{name}/eviction'));
    assert.ok(!names.includes('/api/v1/namespaces/{namespace}/pods/{name}/exec'));
    assert.ok(!names.some((p) => p.includes('persistentvolumes')));
    assert.equal(obj(paths['/api/v1/namespaces'])['delete'], undefined, 'namespaces have no deletecollection');
    const apps = Object.keys(obj(parse('apis/apps/v1')['paths']));
    assert.ok(apps.includes('/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'));
  });

  it('follow the Scheme passed in', () => {
    const pods = scheme.resource('', 'v1', 'pods')!;
    const small = new Scheme([{ ...pods, verbs: ['get', 'list', 'watch'], subresources: [] }]);
    const docs = newOpenApiV3(small);
    assert.deepEqual(docs.names, ['api', 'api/v1', 'apis', 'version']);
    const p = obj(JSON.parse(docs.document('api/v1')!.bytes.toString()) as Json);
    const ps = obj(p['paths']);
    assert.deepEqual(Object.keys(obj(ps['/api/v1/namespaces/{namespace}/pods/{name}'])), ['get', 'parameters']);
    assert.ok(!Object.keys(ps).some((k) => k.endsWith('/status')));
  });
});

describe('the /openapi/v3 schemas', () => {
  const schemas = obj(obj(parse('api/v1')['components'])['schemas']);
  const prop = (def: string, field: string): JsonObject => obj(obj(obj(schemas[def])['properties'])[field]);

  it('carry the patch metadata strategic merge patch needs', () => {
    const containers = prop('io.k8s.api.core.v1.PodSpec', 'containers');
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
    const env = prop('io.k8s.api.core.v1.Container', 'env');
    assert.equal(env['x-kubernetes-patch-merge-key'], 'name');
    const finalizers = prop('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'finalizers');
    assert.equal(finalizers['x-kubernetes-patch-strategy'], 'merge');
  });

  it('carry the list and map types server-side apply needs', () => {
    const containers = prop('io.k8s.api.core.v1.PodSpec', 'containers');
    assert.equal(containers['x-kubernetes-list-type'], 'map');
    assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
    const ports = prop('io.k8s.api.core.v1.Container', 'ports');
    assert.deepEqual(ports['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
    assert.equal(prop('io.k8s.api.core.v1.Container', 'args')['x-kubernetes-list-type'], 'atomic');
    assert.equal(obj(schemas['io.k8s.api.core.v1.NodeSelector'])['x-kubernetes-map-type'], 'atomic');
  });
});
