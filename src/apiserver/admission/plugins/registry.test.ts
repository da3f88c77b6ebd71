import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AdmissionPluginFactory } from '../interfaces.js';
import { selectAdmissionPlugins } from './registry.js';

const factory: AdmissionPluginFactory = () => ({ name: 'x', handles: () => true, admit: () => {} });
const available = { NamespaceLifecycle: factory, ResourceQuota: factory, NodeRestriction: factory, PodSecurity: factory };

describe('selectAdmissionPlugins', () => {
  it('runs the defaults k8ts implements, in upstream order', () => {
    assert.deepEqual(selectAdmissionPlugins({}, available), ['NamespaceLifecycle', 'PodSecurity', 'ResourceQuota']);
  });
  it('adds enabled plugins at their upstream place and removes disabled ones', () => {
    assert.deepEqual(selectAdmissionPlugins({ enable: ['NodeRestriction'], disable: ['PodSecurity'] }, available), ['NamespaceLifecycle', 'NodeRestriction', 'ResourceQuota']);
  });
  it('refuses unknown names, unimplemented plugins and contradictions', () => {
    assert.throws(() => selectAdmissionPlugins({ enable: ['Nope'] }, available), /--enable-admission-plugins: admission plugin "Nope" is unknown/);
    assert.throws(() => selectAdmissionPlugins({ disable: ['Nope'] }, available), /--disable-admission-plugins: admission plugin "Nope" is unknown/);
    assert.throws(() => selectAdmissionPlugins({ enable: ['AlwaysPullImages'] }, available), /"AlwaysPullImages" is not implemented by k8ts/);
    assert.throws(() => selectAdmissionPlugins({ enable: ['NodeRestriction'], disable: ['NodeRestriction'] }, available), /both enabled and disabled/);
  });
});
