import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandCommand, expandReferences } from './expand-command.js';

describe('expandCommand', () => {
  it('expands $(VAR) from the static env only, as upstream', () => {
    const env = [{ name: 'PORT', value: '8080' }, { name: 'SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }];
    assert.deepEqual(expandCommand(['curl', 'localhost:$(PORT)/$(SECRET)x', '$(UNSET)'], env), ['curl', 'localhost:8080/x', '$(UNSET)']);
  });

  it('keeps $$ as $, an unterminated reference and a lone $ as written', () => {
    const lookup = (name: string) => (name === 'A' ? 'a' : undefined);
    assert.equal(expandReferences('$$(A)', lookup), '$(A)');
    assert.equal(expandReferences('$(A', lookup), '$(A');
    assert.equal(expandReferences('cost $5 $', lookup), 'cost $5 $');
    assert.equal(expandReferences('$(A)$(A)', lookup), 'aa');
    assert.deepEqual(expandCommand([], undefined), []);
  });
});
