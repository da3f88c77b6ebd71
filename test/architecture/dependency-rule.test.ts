import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { checkImports, checkTree, sourceFiles } from './dependency-rules.js';

// The compiled test runs from dist/test/architecture; the sources are in the checkout's src/.
const srcRoot = fileURLToPath(new URL('../../../src', import.meta.url));

describe('dependency rule (DESIGN.md §1)', () => {
  it('holds for every source file under src/', () => {
    assert.ok(existsSync(srcRoot), `sources not found at ${srcRoot}`);
    assert.ok(sourceFiles(srcRoot).length > 10, 'the walk found the sources');
    assert.deepEqual(checkTree(srcRoot), []);
  });

  it('flags a component that imports storage', () => {
    const v = checkImports('controllers/x/controller.ts', "import { x } from '../../storage/interface.js';");
    assert.equal(v.length, 1);
    assert.match(v[0]!.reason, /src\/controllers\/ may not import src\/storage\//);
  });

  it('flags components importing each other and the API server', () => {
    assert.equal(checkImports('scheduler/a.ts', "import '../kubelet/b.js';").length, 1);
    assert.equal(checkImports('kubelet/a.ts', "export * from '../apiserver/b.js';").length, 1);
    assert.equal(checkImports('client/a.ts', "const m = await import('../storage/b.js');").length, 1);
  });

  it('allows what the table allows', () => {
    assert.deepEqual(checkImports('apiserver/registry/a.ts', "import '../../storage/interface.js'; import '../../client/cache/reflector.js';"), []);
    assert.deepEqual(checkImports('controllers/a.ts', "import '../client/rest/client.js'; import '../api/scheme.js'; import 'commander';"), []);
    assert.deepEqual(checkImports('cmd/k8ts.ts', "import '../storage/interface.js'; import '../kubelet/x.js';"), []);
  });

  it('allows the API server only the cache part of the client', () => {
    assert.equal(checkImports('apiserver/a.ts', "import '../client/rest/client.js';").length, 1);
  });

  it('flags machinery importing anything of ours, and unknown folders', () => {
    assert.equal(checkImports('machinery/a.ts', "import '../api/scheme.js';").length, 1);
    assert.equal(checkImports('gadgets/a.ts', '').length, 1);
  });
});
