import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControllerDefinition } from './context.js';
import { isControllerEnabled, parseControllersFlag, selectControllers, validateControllerSelectors } from './controller-selection.js';

const def = (name: string, enabledByDefault = true): ControllerDefinition => ({ name, enabledByDefault, start: () => {} });
const DEFS = [def('replicaset'), def('deployment'), def('bootstrapsigner', false)];
const names = (selectors: string[]): string[] => selectControllers(selectors, DEFS).map((d) => d.name);

describe('--controllers', () => {
  it('splits comma lists and repeated flags', () => {
    assert.deepEqual(parseControllersFlag('*, -deployment,,job'), ['*', '-deployment', 'job']);
    assert.deepEqual(parseControllersFlag(['*', 'a,b']), ['*', 'a', 'b']);
  });

  it("'*' enables what is on by default; a name enables; '-name' disables; the first mention decides", () => {
    assert.deepEqual(names(['*']), ['replicaset', 'deployment']);
    assert.deepEqual(names(['*', 'bootstrapsigner']), ['replicaset', 'deployment', 'bootstrapsigner']);
    assert.deepEqual(names(['*', '-deployment']), ['replicaset']);
    assert.deepEqual(names(['replicaset']), ['replicaset'], 'without * only named ones run');
    assert.deepEqual(names(['deployment', '-deployment']), ['deployment']);
    assert.deepEqual(names([]), []);
    assert.equal(isControllerEnabled(def('x', false), ['*']), false);
  });

  it('refuses an unknown name, naming the known ones', () => {
    assert.deepEqual(validateControllerSelectors(['*', 'nope', '-gone'], DEFS), ['"nope" is not in the list of known controllers', '"gone" is not in the list of known controllers']);
    assert.throws(
      () => selectControllers(['*', '-nope'], DEFS),
      (e: Error) => e.message === 'invalid --controllers: "nope" is not in the list of known controllers; known controllers: bootstrapsigner, deployment, replicaset',
    );
    assert.throws(() => selectControllers(['x'], []), /known controllers: \(none\)/);
  });
});
