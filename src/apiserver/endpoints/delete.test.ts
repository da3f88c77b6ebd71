import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../machinery/status.js';
import { deleteOptionsFromQuery, validDeleteOptions } from './delete.js';

const rejectsWith = (options: Record<string, unknown>, code: number, message: string): void => {
  assert.throws(
    () => validDeleteOptions(options),
    (e: unknown) => {
      assert.ok(e instanceof StatusError);
      assert.equal(e.status.code, code);
      assert.equal(e.status.message, message);
      return true;
    },
  );
};

describe('DeleteOptions, checked as upstream’s ValidateDeleteOptions', () => {
  it('answers an unknown propagationPolicy with 422 Invalid of DeleteOptions.meta.k8s.io', () => {
    rejectsWith(
      { propagationPolicy: 'Bogus' },
      422,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
  });
  it('refuses orphanDependents together with propagationPolicy, even orphanDependents false', () => {
    for (const orphanDependents of [true, false]) {
      rejectsWith(
        { orphanDependents, propagationPolicy: 'Background' },
        422,
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
      );
    }
  });
  it('refuses a dryRun other than All, printing the list as Go does', () => {
    rejectsWith({ dryRun: ['All', 'x'] }, 422, 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "x"}: supported values: "All"');
  });
  it('takes a negative gracePeriodSeconds (upstream keeps it) and the rest as sent', () => {
    assert.deepEqual(validDeleteOptions({ gracePeriodSeconds: -5, dryRun: ['All'], propagationPolicy: 'Foreground', preconditions: { uid: 'u' } }), {
      dryRun: true,
      gracePeriodSeconds: -5,
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u' },
    });
    assert.deepEqual(validDeleteOptions({}), { dryRun: false });
  });
  it('reads the query as upstream’s parameter codec does', () => {
    const q = new URLSearchParams('gracePeriodSeconds=-1&propagationPolicy=Orphan&dryRun=All&orphanDependents=false');
    assert.deepEqual(deleteOptionsFromQuery(q), { gracePeriodSeconds: -1, propagationPolicy: 'Orphan', dryRun: ['All'], orphanDependents: false });
    assert.deepEqual(deleteOptionsFromQuery(new URLSearchParams('propagationPolicy=')), {});
    assert.throws(() => deleteOptionsFromQuery(new URLSearchParams('gracePeriodSeconds=soon')), /strconv.ParseInt: parsing "soon": invalid syntax/);
  });
});
