import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstYamlDocument } from './first-yaml-document.js';

describe('firstYamlDocument', () => {
  it('takes the first document of a stream of several, as one Go YAML Unmarshal does', () => {
    const doc = firstYamlDocument('kind: ConfigMap\nmetadata: {name: a}\n---\nkind: Secret\nmetadata: {name: b}\n', { version: '1.1' });
    assert.deepEqual(doc.errors, []);
    assert.deepEqual(doc.toJS(), { kind: 'ConfigMap', metadata: { name: 'a' } });
  });

  it('leaves the errors of later documents to them', () => {
    const doc = firstYamlDocument('a: 1\n---\nb: [unclosed\n', { version: '1.1' });
    assert.deepEqual(doc.errors, []);
    assert.deepEqual(doc.toJS(), { a: 1 });
  });

  it('reports an error in the first document', () => {
    const doc = firstYamlDocument('a: [unclosed\n---\nb: 1\n', { version: '1.1' });
    assert.ok(doc.errors.length > 0);
  });

  it('reads a single document and a leading separator as before', () => {
    assert.deepEqual(firstYamlDocument('a: 1\n', { version: '1.1' }).toJS(), { a: 1 });
    assert.deepEqual(firstYamlDocument('---\na: 1\n', { version: '1.1' }).toJS(), { a: 1 });
  });

  it('gives an empty document for an empty stream', () => {
    const doc = firstYamlDocument('# only a comment\n', { version: '1.1' });
    assert.deepEqual(doc.errors, []);
    assert.equal(doc.toJS(), null);
  });
});
