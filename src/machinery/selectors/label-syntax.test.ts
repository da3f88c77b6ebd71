import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labelKeyProblems, labelValueProblems } from './label-syntax.js';

const NAME_REGEX =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const PREFIX_REGEX =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const VALUE_REGEX =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('labelKeyProblems', () => {
  it('accepts names and DNS-subdomain-prefixed names', () => {
    for (const key of ['a', 'A', '1', 'app', 'MyName', 'my.name', '123-abc', 'a_b', 'a-b.c_d', 'example.com/app', 'kubernetes.io/hostname', 'node-role.kubernetes.io/control-plane', '0.1.2.domain/99', 'x'.repeat(63), `${'a'.repeat(253)}/b`]) {
      assert.deepEqual(labelKeyProblems(key), [], key);
    }
  });

  it('rejects a bad name part', () => {
    for (const key of ['-a', 'a-', '.a', 'a.', '_a', 'a_', 'a b', 'a$b', 'é', 'a:b']) {
      assert.deepEqual(labelKeyProblems(key), [`name part ${NAME_REGEX}`], key);
    }
  });

  it('rejects an empty key and an empty name after the prefix with both messages', () => {
    assert.deepEqual(labelKeyProblems(''), ['name part must be non-empty', `name part ${NAME_REGEX}`]);
    assert.deepEqual(labelKeyProblems('example.com/'), ['name part must be non-empty', `name part ${NAME_REGEX}`]);
  });

  it('rejects a name of more than 63 bytes', () => {
    assert.deepEqual(labelKeyProblems('a'.repeat(64)), ['name part must be no more than 63 bytes']);
    assert.deepEqual(labelKeyProblems(`x/${'a'.repeat(64)}`), ['name part must be no more than 63 bytes']);
  });

  it('rejects an empty or invalid prefix', () => {
    assert.deepEqual(labelKeyProblems('/a'), ['prefix part must be non-empty']);
    assert.deepEqual(labelKeyProblems('Example.com/a'), [`prefix part ${PREFIX_REGEX}`]);
    assert.deepEqual(labelKeyProblems('a_b/c'), [`prefix part ${PREFIX_REGEX}`]);
    assert.deepEqual(labelKeyProblems(`${'a'.repeat(254)}/b`), ['prefix part must be no more than 253 bytes']);
    assert.deepEqual(labelKeyProblems(`${'a'.repeat(254)}-/b`), ['prefix part must be no more than 253 bytes', `prefix part ${PREFIX_REGEX}`]);
  });

  it('reports prefix and name problems together', () => {
    assert.deepEqual(labelKeyProblems('/-'), ['prefix part must be non-empty', `name part ${NAME_REGEX}`]);
  });

  it('rejects more than one slash with a single message', () => {
    assert.deepEqual(labelKeyProblems('a/b/c'), [
      `a valid label key ${NAME_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]);
    assert.equal(labelKeyProblems('//').length, 1);
  });
});

describe('labelValueProblems', () => {
  it('accepts empty and well-formed values', () => {
    for (const value of ['', 'a', 'MyValue', 'my_value', '12345', 'v1.2.3', 'a-b_c.d', 'x'.repeat(63)]) {
      assert.deepEqual(labelValueProblems(value), [], value);
    }
  });

  it('rejects bad characters and edges', () => {
    for (const value of ['-a', 'a-', '.', '_', 'a b', 'a/b', 'a$', 'é', 'a\n']) {
      assert.deepEqual(labelValueProblems(value), [VALUE_REGEX], JSON.stringify(value));
    }
  });

  it('rejects more than 63 bytes, counting UTF-8 bytes', () => {
    assert.deepEqual(labelValueProblems('a'.repeat(64)), ['must be no more than 63 bytes']);
    assert.deepEqual(labelValueProblems('é'.repeat(32)), ['must be no more than 63 bytes', VALUE_REGEX]);
    assert.deepEqual(labelValueProblems(`-${'a'.repeat(63)}`), ['must be no more than 63 bytes', VALUE_REGEX]);
  });
});
