import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitSchemeNamePort } from './proxy-id.js';

describe('splitSchemeNamePort', () => {
  it('reads name, name:port and scheme:name:port', () => {
    assert.deepEqual(splitSchemeNamePort('web'), { id: 'web', scheme: '', name: 'web', port: '' });
    assert.deepEqual(splitSchemeNamePort('web:8080'), { id: 'web:8080', scheme: '', name: 'web', port: '8080' });
    assert.deepEqual(splitSchemeNamePort('web:http'), { id: 'web:http', scheme: '', name: 'web', port: 'http' });
    assert.deepEqual(splitSchemeNamePort('http:web:8080'), { id: 'http:web:8080', scheme: 'http', name: 'web', port: '8080' });
    assert.deepEqual(splitSchemeNamePort('https:web:metrics'), { id: 'https:web:metrics', scheme: 'https', name: 'web', port: 'metrics' });
    assert.deepEqual(splitSchemeNamePort(':web:80'), { id: ':web:80', scheme: '', name: 'web', port: '80' });
    assert.deepEqual(splitSchemeNamePort('web:'), { id: 'web:', scheme: '', name: 'web', port: '' });
  });

  it('rejects an empty name, an unknown scheme and too many parts', () => {
    assert.equal(splitSchemeNamePort(''), undefined);
    assert.equal(splitSchemeNamePort(':80'), undefined);
    assert.equal(splitSchemeNamePort('ftp:web:21'), undefined);
    assert.equal(splitSchemeNamePort('http:web:80:extra'), undefined);
  });
});
