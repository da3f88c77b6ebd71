import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { invalid, notFound } from '../../machinery/status.js';
import { invalid as invalidField } from '../../machinery/field-errors.js';
import { statusBody } from './response.js';

describe('statusBody', () => {
  it('writes a Status as upstream does: Go field order, empty fields left out', () => {
    const text = JSON.stringify(statusBody(notFound({ group: '', resource: 'configmaps' }, 'cn1').status));
    assert.equal(
      text,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"cn1\\" not found","reason":"NotFound","details":{"name":"cn1","kind":"configmaps"},"code":404}',
    );
  });

  it('keeps the causes of an Invalid error in reason, message, field order', () => {
    const body = statusBody(invalid({ group: '', kind: 'ConfigMap' }, 'Bad_Name', [invalidField('metadata.name', 'Bad_Name', 'bad')]).status);
    const details = body.details as { causes: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(body), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
    assert.deepEqual(Object.keys(details.causes[0]!), ['reason', 'message', 'field']);
  });
});
