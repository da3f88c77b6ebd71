import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conflictError, conflictMessage, printManager } from './conflicts.js';
import { fieldElement, keyElement } from './field-set.js';
import { identity } from './managed-fields.js';

const f = fieldElement;
const csa = identity('kubectl-client-side-apply', 'Update', 'v1', '');
const applier = identity('helm', 'Apply', 'apps/v1', '');
const status = identity('kubelet', 'Update', 'v1', 'status');

describe('apply conflicts', () => {
  it('names managers as upstream prints them', () => {
    assert.equal(printManager(csa), '"kubectl-client-side-apply" using v1');
    assert.equal(printManager(applier), '"helm"');
    assert.equal(printManager(status), '"kubelet" with subresource "status" using v1');
  });

  it('has one form for one conflict and a grouped form for several', () => {
    assert.equal(conflictMessage([{ manager: csa, path: [f('data'), f('key')] }]), 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key');
    const several = [
      { manager: status, path: [f('status'), f('phase')] },
      { manager: applier, path: [f('spec'), f('replicas')] },
      { manager: applier, path: [f('spec'), f('template'), f('spec'), f('containers'), keyElement([['name', 'web']]), f('image')] },
    ];
    assert.equal(
      conflictMessage(several),
      'Apply failed with 3 conflicts: conflicts with "helm":\n- .spec.replicas\n- .spec.template.spec.containers[name="web"].image\nconflicts with "kubelet" with subresource "status" using v1:\n- .status.phase',
    );
  });

  it('is a 409 Conflict with a FieldManagerConflict cause per field', () => {
    const e = conflictError([{ manager: csa, path: [f('data'), f('key')] }]);
    assert.equal(e.status.code, 409);
    assert.equal(e.status.reason, 'Conflict');
    assert.deepEqual(e.status.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.key' }] });
  });
});
