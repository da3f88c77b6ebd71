import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from './path-element.js';
import { builtinTypeSchema } from './schema.js';
import { shallowCopy, withValueStructs } from './value-structs.js';

type Obj = { [key: string]: JsonValue };

describe('withValueStructs', () => {
  const schema = builtinTypeSchema();
  const deployment = schema.typeOfKind('apps', 'v1', 'Deployment');

  it('fills in the structs Go holds by value, leaving the input unchanged', () => {
    const input: Obj = { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 1 } };
    const before = JSON.stringify(input);
    const out = withValueStructs(schema, input, deployment);
    assert.equal(JSON.stringify(input), before);
    const spec = out.spec as Obj;
    assert.equal(spec.replicas, 1);
    assert.deepEqual(Object.keys(out.metadata as Obj), []);
    // The template and its metadata and spec exist; the selector (a required pointer) is nil.
    const template = spec.template as Obj;
    assert.ok(template.metadata !== undefined && template.spec !== undefined);
    assert.equal(spec.selector, null);
    assert.equal(spec.strategy !== undefined && spec.paused === undefined, true);
    // A required list is nil (null) in the typed object: the pod spec's containers.
    assert.equal((template.spec as Obj).containers, null);
  });

  it('returns subtrees that need nothing as they are (copy on write)', () => {
    const container: Obj = { name: 'web', image: 'x', resources: {} };
    const input: Obj = { metadata: {}, spec: { template: { metadata: {}, spec: { containers: [container] } } }, status: {} };
    const out = withValueStructs(schema, input, deployment);
    const spec = (((out.spec as Obj).template as Obj).spec as Obj);
    assert.equal((spec.containers as JsonValue[])[0], container);
  });

  it('completes structs inside list items', () => {
    const input: Obj = { spec: { template: { spec: { containers: [{ name: 'web' }] } } } };
    const out = withValueStructs(schema, input, deployment);
    const container = ((((out.spec as Obj).template as Obj).spec as Obj).containers as Obj[])[0]!;
    assert.deepEqual(container.resources, {});
    assert.deepEqual(((input.spec as Obj).template as Obj).spec, { containers: [{ name: 'web' }] });
  });
});

describe('shallow copies', () => {
  it('keep every own key in its order, "__proto__" included as a key', () => {
    const plain: Obj = { b: 1, a: { c: 2 } };
    const copy = shallowCopy(plain);
    assert.notEqual(copy, plain);
    assert.deepEqual(Object.keys(copy), ['b', 'a']);
    assert.equal(copy.a, plain.a);
    const tricky = JSON.parse('{"x":1,"__proto__":{"polluted":true}}') as Obj;
    const trickyCopy = shallowCopy(tricky);
    assert.deepEqual(Object.keys(trickyCopy), ['x', '__proto__']);
    assert.equal(Object.getPrototypeOf(trickyCopy), Object.prototype);
    assert.equal((trickyCopy as { polluted?: boolean }).polluted, undefined);
  });
});
