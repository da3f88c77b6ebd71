import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../api/resources.js';
import { Scheme } from '../../api/scheme.js';
import { buildSwaggerDocument } from './build-swagger.js';
import { loadOpenApiV2Data, type Json, type JsonObject } from './openapi-data.js';

const REGENERATE = 'run npx tsc -p . && node scripts/gen-openapi.mjs ../shared/specs/kubernetes-openapi-v2.json';
const scheme = newBuiltinScheme();
const data = loadOpenApiV2Data();
const doc = buildSwaggerDocument(scheme, data, { version: 'v1.33.0' });

const obj = (v: Json | undefined): JsonObject => {
  assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), `expected an object, got ${JSON.stringify(v)}`);
  return v;
};

/** Every `$ref` value in `value`. */
function refs(value: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) refs(v, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.add(v);
      else refs(v, found);
    }
  }
  return found;
}

describe('buildSwaggerDocument', () => {
  it('is a Swagger 2.0 document in upstream key order, with the BearerToken scheme', () => {
    assert.deepEqual(Object.keys(doc), ['swagger', 'info', 'paths', 'definitions', 'parameters', 'securityDefinitions', 'security']);
    assert.equal(doc['swagger'], '2.0');
    assert.deepEqual(doc['info'], { title: 'Kubernetes', version: 'v1.33.0' });
    assert.deepEqual(doc['security'], [{ BearerToken: [] }]);
  });

  it('serves every served kind with its group-version-kind, which kubectl looks models up by', () => {
    const definitions = obj(doc['definitions']);
    const gvks = new Set(
      Object.values(definitions).flatMap((d) => ((obj(d)['x-kubernetes-group-version-kind'] ?? []) as JsonObject[]).map((g) => `${String(g['group'])}/${String(g['version'])}/${String(g['kind'])}`)),
    );
    const paths = Object.keys(obj(doc['paths']));
    for (const r of scheme.resources()) {
      const stale = `${r.group}/${r.version} ${r.resource} is missing from the committed OpenAPI data: ${REGENERATE}`;
      assert.ok(gvks.has(`${r.group}/${r.version}/${r.kind}`), stale);
      const prefix = r.group === '' ? `/api/${r.version}/` : `/apis/${r.group}/${r.version}/`;
      assert.ok(paths.some((p) => p.startsWith(prefix) && p.split('/').includes(r.resource)), stale);
    }
    const containers = obj(obj(obj(definitions['io.k8s.api.core.v1.PodSpec'])['properties'])['containers']);
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers['x-kubernetes-list-type'], 'map');
  });

  it('resolves every reference inside the document, and has no definition or parameter nothing uses', () => {
    const all = refs(doc);
    for (const ref of all) {
      const [, table, name] = ref.split('/');
      assert.ok(obj(doc[table!])[name!] !== undefined, ref);
    }
    for (const name of Object.keys(obj(doc['parameters']))) assert.ok(all.has(`#/parameters/${name}`), name);
    const fromPaths = refs({ paths: doc['paths']!, parameters: doc['parameters']! });
    const reached = new Set(fromPaths);
    for (const ref of reached) if (ref.startsWith('#/definitions/')) refs(obj(doc['definitions'])[ref.slice('#/definitions/'.length)]!, reached);
    for (const name of Object.keys(obj(doc['definitions']))) assert.ok(reached.has(`#/definitions/${name}`), name);
  });

  it('carries no upstream prose: the only descriptions are the responses\' status texts', () => {
    const texts = new Set<string>();
    const walk = (v: Json, inProperties: boolean): void => {
      if (Array.isArray(v)) v.forEach((x) => walk(x, false));
      else if (typeof v === 'object' && v !== null) {
        for (const [k, x] of Object.entries(v)) {
          if (k === 'description' && !inProperties) texts.add(String(x));
          walk(x, k === 'properties' && !inProperties);
        }
      }
    };
    walk(doc, false);
    assert.deepEqual([...texts].sort(), ['Accepted', 'Created', 'OK', 'Unauthorized']);
  });

  it('follows the Scheme passed in', () => {
    const pods = scheme.resource('', 'v1', 'pods')!;
    const small = buildSwaggerDocument(new Scheme([{ ...pods, verbs: ['get', 'list', 'watch'], subresources: [] }]), data, { version: 'v1.33.0' });
    const paths = obj(small['paths']);
    assert.deepEqual(Object.keys(obj(paths['/api/v1/namespaces/{namespace}/pods/{name}'])), ['get', 'parameters']);
    assert.ok(!Object.keys(paths).some((p) => p.includes('configmaps') || p.endsWith('/status')));
    assert.equal(obj(small['definitions'])['io.k8s.api.core.v1.ConfigMap'], undefined);
    assert.ok(obj(small['definitions'])['io.k8s.api.core.v1.Pod']);
  });

  it('says how to fix data that lacks a definition its paths use', () => {
    const definitions: Record<string, JsonObject> = { ...data.definitions };
    delete definitions['io.k8s.api.core.v1.PodSpec'];
    assert.throws(() => buildSwaggerDocument(scheme, { ...data, definitions }, { version: 'v1.33.0' }), /no definition io\.k8s\.api\.core\.v1\.PodSpec: regenerate it with scripts\/gen-openapi\.mjs/);
  });
});
