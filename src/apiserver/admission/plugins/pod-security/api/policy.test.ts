import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatFieldErrors } from '../../../../../machinery/field-errors.js';
import { LATEST, levelVersionString, majorMinor } from './level-version.js';
import { policyToEvaluate, type Policy } from './policy.js';

const PRIVILEGED: Policy = { enforce: { level: 'privileged', version: LATEST }, audit: { level: 'privileged', version: LATEST }, warn: { level: 'privileged', version: LATEST } };
const show = (p: Policy): string => `${levelVersionString(p.enforce)} ${levelVersionString(p.audit)} ${levelVersionString(p.warn)}`;

describe('policyToEvaluate', () => {
  it('gives the defaults without labels', () => {
    assert.equal(show(policyToEvaluate(undefined, PRIVILEGED).policy), 'privileged:latest privileged:latest privileged:latest');
  });
  it('reads each mode and version, warn following a stricter enforce', () => {
    const { policy, errors } = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.24', 'pod-security.kubernetes.io/audit': 'baseline' }, PRIVILEGED);
    assert.deepEqual(errors, []);
    assert.equal(show(policy), 'restricted:v1.24 baseline:latest restricted:v1.24');
  });
  it('keeps an explicit warn level, and an explicit warn version when warn follows enforce', () => {
    assert.equal(show(policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'baseline' }, PRIVILEGED).policy), 'restricted:latest privileged:latest baseline:latest');
    assert.equal(
      show(policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn-version': 'v1.30' }, PRIVILEGED).policy),
      'baseline:latest privileged:latest baseline:v1.30',
    );
  });
  it('a bad enforce level enforces restricted; bad audit and warn levels fail open', () => {
    const { policy, errors } = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'bogus', 'pod-security.kubernetes.io/audit': 'x', 'pod-security.kubernetes.io/warn': 'y' }, PRIVILEGED);
    assert.equal(show(policy), 'restricted:latest privileged:latest privileged:latest');
    assert.equal(
      formatFieldErrors(errors),
      '[metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "x": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "y": must be one of privileged, baseline, restricted]',
    );
  });
  it('a bad version is latest, with an error', () => {
    const { policy, errors } = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': '1.2' }, { ...PRIVILEGED, enforce: { level: 'privileged', version: majorMinor(1, 20) } });
    assert.equal(levelVersionString(policy.enforce), 'baseline:latest');
    assert.equal(formatFieldErrors(errors), 'metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "1.2": must be "latest" or "v1.x"');
  });
});
