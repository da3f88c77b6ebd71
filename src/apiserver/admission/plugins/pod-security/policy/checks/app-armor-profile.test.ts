import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { appArmorProfile_1_0 } from './app-armor-profile.js';

describe('appArmorProfile check', () => {
  it('allows RuntimeDefault, Localhost and the allowed annotation values', () => {
    const spec = specWith([container('a', { appArmorProfile: { type: 'Localhost' } })], { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } });
    const annotations = {
      'container.apparmor.security.beta.kubernetes.io/a': 'runtime/default',
      'container.apparmor.security.beta.kubernetes.io/b': 'localhost/x',
      'container.apparmor.security.beta.kubernetes.io/c': '',
    };
    assert.equal(run(appArmorProfile_1_0, spec, annotations).allowed, true);
  });
  it('forbids Unconfined on the pod', () => {
    const spec = specWith([container('a')], { securityContext: { appArmorProfile: { type: 'Unconfined' } } });
    assert.deepEqual(run(appArmorProfile_1_0, spec), {
      allowed: false,
      forbiddenReason: 'forbidden AppArmor profile',
      forbiddenDetail: 'pod must not set AppArmor profile type to "Unconfined"',
    });
  });
  it('names pod, containers and annotations, values then annotations', () => {
    const spec = specWith([container('a', { appArmorProfile: { type: 'Unconfined' } }), container('b', { appArmorProfile: { type: 'Bogus' } })], {
      securityContext: { appArmorProfile: { type: 'Unconfined' } },
    });
    const annotations = {
      'container.apparmor.security.beta.kubernetes.io/b': 'unconfined',
      'container.apparmor.security.beta.kubernetes.io/a': 'unconfined',
    };
    assert.deepEqual(run(appArmorProfile_1_0, spec, annotations), {
      allowed: false,
      forbiddenReason: 'forbidden AppArmor profiles',
      forbiddenDetail:
        'pod and containers "a", "b" and annotations must not set AppArmor profile type to "Bogus", "Unconfined", "container.apparmor.security.beta.kubernetes.io/a="unconfined"", "container.apparmor.security.beta.kubernetes.io/b="unconfined""',
    });
  });
  it('a single bad annotation', () => {
    const r = run(appArmorProfile_1_0, specWith([container('a')]), { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' });
    assert.equal(r.forbiddenReason, 'forbidden AppArmor profile');
    assert.equal(r.forbiddenDetail, 'annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/a="unconfined""');
  });
});
