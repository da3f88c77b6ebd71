import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareLevels, LATEST, levelVersionString, majorMinor, olderThan, parseLevel, parseVersion, versionString } from './level-version.js';

describe('Pod Security levels and versions', () => {
  it('parses the three levels and refuses others with upstream text', () => {
    assert.deepEqual(parseLevel('baseline'), { level: 'baseline' });
    assert.deepEqual(parseLevel('Restricted'), { level: 'restricted', error: 'must be one of privileged, baseline, restricted' });
  });
  it('parses latest and v1.X only', () => {
    assert.equal(versionString(parseVersion('latest').version), 'latest');
    assert.equal(versionString(parseVersion('v1.25').version), 'v1.25');
    assert.equal(versionString(parseVersion('v1.0').version), 'v1.0');
    for (const bad of ['1.25', 'v2.0', 'v1.025', 'v1.', 'v1.x', '']) assert.equal(parseVersion(bad).error, 'must be "latest" or "v1.x"', bad);
  });
  it('orders versions with latest newest', () => {
    assert.equal(olderThan(majorMinor(1, 9), majorMinor(1, 10)), true);
    assert.equal(olderThan(majorMinor(1, 10), majorMinor(1, 10)), false);
    assert.equal(olderThan(majorMinor(1, 99), LATEST), true);
    assert.equal(olderThan(LATEST, LATEST), false);
  });
  it('compares levels and prints level:version', () => {
    assert.equal(compareLevels('restricted', 'baseline'), 1);
    assert.equal(compareLevels('privileged', 'baseline'), -1);
    assert.equal(compareLevels('baseline', 'baseline'), 0);
    assert.equal(levelVersionString({ level: 'restricted', version: LATEST }), 'restricted:latest');
  });
});
