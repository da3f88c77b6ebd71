import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '../types.js';
import { extractFieldPathAsString, formatMap, splitSubscriptedPath } from './pod-fields.js';

const pod: Pod = { metadata: { name: 'web', namespace: 'ns', uid: 'u', labels: { z: '1', a: 'tab\there' }, annotations: { 'Example.com/Key': 'v' } } };

describe('downward API pod fields', () => {
  it('splits subscripted paths as upstream', () => {
    assert.deepEqual(splitSubscriptedPath("metadata.labels['a.b/c']"), { path: 'metadata.labels', subscript: 'a.b/c' });
    assert.equal(splitSubscriptedPath('metadata.labels'), undefined);
    assert.equal(splitSubscriptedPath("['x']"), undefined);
    assert.equal(splitSubscriptedPath("metadata.labels'x']"), undefined);
  });

  it('formats maps as sorted key="value" lines with Go quoting', () => {
    assert.equal(formatMap({ b: 'say "hi"', a: 'x\ny' }), 'a="x\\ny"\nb="say \\"hi\\""');
    assert.equal(formatMap(undefined), '');
  });

  it('extracts metadata fields; annotation keys are checked lower-cased, as upstream', () => {
    assert.equal(extractFieldPathAsString(pod, 'metadata.labels'), 'a="tab\\there"\nz="1"');
    assert.equal(extractFieldPathAsString(pod, "metadata.annotations['Example.com/Key']"), 'v');
    assert.equal(extractFieldPathAsString(pod, 'metadata.uid'), 'u');
    assert.throws(() => extractFieldPathAsString(pod, "metadata.labels['Example.com/Key/x']"), /^Error: invalid key subscript in metadata\.labels\['Example\.com\/Key\/x'\]: /);
    assert.throws(() => extractFieldPathAsString(pod, "metadata.name['x']"), /^Error: fieldPath "metadata\.name\['x'\]" does not support subscript$/);
    assert.throws(() => extractFieldPathAsString(pod, 'spec.nodeName'), /^Error: unsupported fieldPath: spec\.nodeName$/);
  });
});
