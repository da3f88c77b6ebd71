import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { StatusError } from '../../machinery/status.js';
import { strategicMergePatchObject, strategicMergeSchemaFor } from './strategic-merge.js';
import type { FieldValidationDirective } from './field-validation.js';

const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };

function current(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'web', image: 'nginx:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] },
            { name: 'sidecar', image: 'busybox' },
          ],
        },
      },
    },
  } as KubeObject;
}

function smp(patch: unknown, directive: FieldValidationDirective = 'Warn', body = JSON.stringify(patch)) {
  return strategicMergePatchObject(current(), Buffer.from(body), patch, DEPLOYMENT, directive);
}

function assertStatus(fn: () => unknown, code: number, reason: string, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.reason, reason);
    assert.equal(e.message, message);
    return true;
  });
}

type Containers = Array<{ name: string; image: string; env?: unknown[] }>;
const containersOf = (v: unknown): Containers => (v as { spec: { template: { spec: { containers: Containers } } } }).spec.template.spec.containers;

describe('PATCH with a strategic merge patch', () => {
  it('merges containers and env by name, as kubectl set image and set env send them', () => {
    const { value, warnings } = smp({
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2', env: [{ name: 'B', value: '3' }, { name: 'A', $patch: 'delete' }] }] } } },
    });
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      containersOf(value).map((c) => [c.name, c.image, c.env]),
      [
        ['web', 'nginx:2', [{ name: 'B', value: '3' }]],
        ['sidecar', 'busybox', undefined],
      ],
    );
  });
  it('a kind without patch metadata answers 415 with the other patch types', () => {
    assertStatus(
      () => strategicMergeSchemaFor({ group: 'example.com', version: 'v1', kind: 'Widget' }),
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });
  it('a body that is not an object is a 400 in Go words; null is an empty patch', () => {
    assertStatus(() => smp([1]), 400, 'BadRequest', 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    assertStatus(() => smp('x'), 400, 'BadRequest', 'json: cannot unmarshal string into Go value of type map[string]interface {}');
    assert.deepEqual(containersOf(smp(null).value).length, 2);
  });
  it('patch errors: a missing merge key is a 500 with upstream text, a bad directive a 400, a list of lists a 422', () => {
    assertStatus(() => smp({ spec: { template: { spec: { containers: [{ image: 'x' }] } } } }), 500, '', 'map: map[image:x] does not contain declared merge key: name');
    assertStatus(() => smp({ spec: { $retainKeys: 'x' } }), 400, 'BadRequest', 'invalid patch format of retainKeys');
    // A list absent from the object is taken whole: the list of lists then fails to decode.
    assertStatus(
      () => smp({ spec: { template: { spec: { volumes: [[1]] } } } }),
      422,
      'Invalid',
      ' "" is invalid: patch: Invalid value: "map[spec:map[template:map[spec:map[volumes:[[1]]]]]]": cannot restore struct from: slice',
    );
    const withFinalizers = { ...current(), metadata: { name: 'web', namespace: 'default', finalizers: [] } } as KubeObject;
    const patch = { metadata: { finalizers: [['a']] } };
    assertStatus(() => strategicMergePatchObject(withFinalizers, Buffer.from(JSON.stringify(patch)), patch, DEPLOYMENT, 'Warn'), 422, 'Invalid', 'lists of lists are not supported');
    assertStatus(
      () => smp({ spec: { template: { spec: { containers: [{ name: 'web', env: ['x'] }] } } } }),
      500,
      '',
      'list element types are not identical: [[map[name:A value:1] map[name:B value:2]] [x]]',
    );
  });
  it('a patch nested too deep for the stack is the client\'s error', () => {
    const depth = 200_000;
    const body = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const patch = JSON.parse(body) as unknown;
    for (const directive of ['Warn', 'Ignore'] as const) {
      assertStatus(() => smp(patch, directive, body), 400, 'BadRequest', 'error decoding the request body as JSON: exceeded max depth');
    }
  });
  it('unknown and duplicate fields: warnings under Warn, a 422 under Strict, nothing under Ignore', () => {
    const body = '{"spec":{"paused":true,"paused":false,"foo":1}}';
    const patch = JSON.parse(body) as unknown;
    assert.deepEqual(smp(patch, 'Warn', body).warnings, ['duplicate field "spec.paused"', 'unknown field "spec.foo"']);
    assert.deepEqual(smp(patch, 'Ignore', body).warnings, []);
    assertStatus(
      () => smp(patch, 'Strict', body),
      422,
      'Invalid',
      ' "" is invalid: patch: Invalid value: "map[spec:map[foo:1 paused:false]]": strict decoding error: duplicate field "spec.paused", unknown field "spec.foo"',
    );
  });
  it('a value of the wrong type is a 422 whatever the directive', () => {
    assertStatus(
      () => smp({ spec: { replicas: 'two' } }, 'Ignore'),
      422,
      'Invalid',
      ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:two]]": json: cannot unmarshal string into Go value of type int32',
    );
  });
  it('wrong types are told in the unstructured converter\'s words, as upstream\'s strategic merge patch handler decodes its patched map', () => {
    const container = (fields: Record<string, unknown>) => ({ spec: { template: { spec: { containers: [{ name: 'web', ...fields }] } } } });
    const cases: Array<[unknown, string]> = [
      // kubectl apply of a manifest with `env: prod` (a client-side apply is a strategic merge patch).
      [container({ env: 'prod' }), 'cannot restore slice from string'],
      [container({ command: 1 }), 'cannot restore slice from int64'],
      [{ metadata: { labels: 'x' } }, 'cannot restore map from string'],
      [{ spec: { strategy: 'x' } }, 'cannot restore struct from: string'],
      [{ spec: { selector: [1] } }, 'cannot restore struct from: slice'],
      [container({ image: 5 }), 'cannot convert int64 to string'],
      [container({ imagePullPolicy: 3 }), 'cannot convert int64 to v1.PullPolicy'],
      [{ spec: { replicas: 1.5 } }, 'cannot convert float64 to int32'],
      [{ spec: { paused: 1 } }, 'json: cannot unmarshal number into Go value of type bool'],
      [{ spec: { paused: 'yes' } }, 'json: cannot unmarshal string into Go value of type bool'],
      [{ spec: { replicas: true } }, 'json: cannot unmarshal bool into Go value of type int32'],
      [container({ image: 1.5 }), 'json: cannot unmarshal number into Go value of type string'],
      [{ metadata: { creationTimestamp: 1 } }, 'json: cannot unmarshal number into Go value of type string'],
    ];
    for (const [patch, message] of cases) {
      assert.throws(() => smp(patch), (e: unknown) => {
        assert.ok(e instanceof StatusError, String(e));
        assert.equal(e.code, 422);
        assert.ok(e.message.endsWith(`": ${message}`), `${JSON.stringify(patch)}: ${e.message}`);
        return true;
      });
    }
    // An integer into a narrower one is reflect's Convert, which does not fail.
    assert.equal((smp({ spec: { replicas: 3 } }).value as { spec: { replicas: number } }).spec.replicas, 3);
  });
});
