import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadTokenFile, newTokenFileAuthenticator, parseTokenFile, type TokenFileWarning } from './token-file.js';

describe('static token file', () => {
  it('reads token, user, uid and the quoted group list', () => {
    const users = parseTokenFile('secret1,alice,1001,"dev,ops"\nsecret2,bob,,\nsecret3, carol ,c\n', 'f');
    assert.deepEqual(users.get('secret1'), { name: 'alice', uid: '1001', groups: ['dev', 'ops'] });
    assert.deepEqual(users.get('secret2'), { name: 'bob', groups: [] });
    assert.deepEqual(users.get('secret3'), { name: 'carol ', uid: 'c', groups: [] });
  });

  it('skips blank lines and empty tokens, and keeps the later of duplicate tokens, with warnings', () => {
    const warnings: TokenFileWarning[] = [];
    const users = parseTokenFile('\n,nobody,1\nt,first,1\nt,second,2\r\n', 'f', (w) => warnings.push(w));
    assert.equal(users.size, 1);
    assert.equal(users.get('t')?.name, 'second');
    assert.deepEqual(warnings.map((w) => w.line), [2, 4]);
  });

  it('refuses a line with fewer than three columns, naming the file and line', () => {
    assert.throws(() => parseTokenFile('a,b,c\nonly,two\n', 'tokens.csv'), /token file 'tokens.csv' must have at least 3 columns \(token, user name, user uid\), found 2 on line 2/);
  });

  it('refuses broken quoting', () => {
    assert.throws(() => parseTokenFile('a,b,c,"dev\n', 'f'), /line 1: extraneous or missing " in quoted-field/);
    assert.throws(() => parseTokenFile('a,b"x,c\n', 'f'), /line 1: bare " in non-quoted-field/);
  });

  it('authenticates known tokens only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    try {
      writeFileSync(join(dir, 'tokens.csv'), 'known,alice,1,admins\n');
      const auth = loadTokenFile(join(dir, 'tokens.csv'));
      assert.deepEqual((await auth.authenticateToken('known'))?.user, { name: 'alice', uid: '1', groups: ['admins'] });
      assert.equal(await auth.authenticateToken('unknown'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says which file it could not read', () => {
    assert.throws(() => loadTokenFile('/nonexistent/tokens.csv'), /reading the token file '\/nonexistent\/tokens.csv' \(--token-auth-file\) failed/);
  });

  it('answers a token with the same object each time (the file is read once)', () => {
    const users = parseTokenFile('secret1,alice,1001\nsecret2,alice,1001\n', 'f');
    const auth = newTokenFileAuthenticator(users);
    const first = auth.authenticateToken('secret1');
    assert.deepEqual(first, { user: { name: 'alice', uid: '1001', groups: [] } });
    assert.equal(auth.authenticateToken('secret1'), first);
    assert.notEqual(auth.authenticateToken('secret2'), first);
    assert.equal(auth.authenticateToken('nope'), undefined);
  });
});
