import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../machinery/status.js';
import { negotiateInput, negotiateOutput } from './negotiation.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

describe('negotiation', () => {
  it('answers protobuf when the client asks for it, in its order of preference', () => {
    assert.equal(negotiateOutput(PROTOBUF, { transforms: false }).encoding, 'protobuf');
    assert.equal(negotiateOutput(`${PROTOBUF}, application/json`, { transforms: false }).contentType, PROTOBUF);
    assert.equal(negotiateOutput(`application/json, ${PROTOBUF}`, { transforms: false }).encoding, 'json');
    assert.equal(negotiateOutput(`${PROTOBUF};q=0, application/json`, { transforms: false }).encoding, 'json');
    assert.equal(negotiateOutput('*/*', { transforms: false }).encoding, 'json');
  });

  it('serves PartialObjectMetadata in protobuf but a Table only in JSON or YAML, as upstream', () => {
    const partial = negotiateOutput(`${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`, { transforms: true });
    assert.deepEqual([partial.encoding, partial.shape, partial.contentType], ['protobuf', 'PartialObjectMetadata', PROTOBUF]);
    const table = negotiateOutput(`${PROTOBUF};as=Table;g=meta.k8s.io;v=v1, application/json;as=Table;g=meta.k8s.io;v=v1`, { transforms: true });
    assert.deepEqual([table.encoding, table.shape, table.contentType], ['json', 'Table', 'application/json']);
    assert.throws(
      () => negotiateOutput(`${PROTOBUF};as=Table;g=meta.k8s.io;v=v1`, { transforms: true }),
      (e: unknown) => e instanceof StatusError && e.code === 406 && e.status.message === `only the following media types are accepted: application/json, application/yaml, ${PROTOBUF}`,
    );
  });

  it('reads protobuf request bodies for create and update, not for patch', () => {
    assert.equal(negotiateInput(PROTOBUF, { patch: false }), 'protobuf');
    assert.equal(negotiateInput(`${PROTOBUF}; charset=binary`, { patch: false }), 'protobuf');
    assert.throws(() => negotiateInput(PROTOBUF, { patch: true }), (e: unknown) => e instanceof StatusError && e.code === 415);
    assert.throws(
      () => negotiateInput('application/cbor', { patch: false }),
      (e: unknown) => e instanceof StatusError && e.status.message === `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${PROTOBUF}`,
    );
  });

  it('answers a repeated Accept header the same, kept apart by whether transforms are served', () => {
    const table = 'application/json;as=Table;g=meta.k8s.io;v=v1, application/yaml';
    for (let i = 0; i < 3; i++) {
      assert.equal(negotiateOutput(table, { transforms: true }).shape, 'Table');
      assert.deepEqual(negotiateOutput(table, { transforms: false }), { encoding: 'yaml', shape: 'object', contentType: 'application/yaml' });
      assert.equal(negotiateOutput(`${PROTOBUF}, application/json`, { transforms: false }).encoding, 'protobuf');
      assert.equal(negotiateOutput(undefined, { transforms: false }).encoding, 'json');
      assert.throws(() => negotiateOutput('text/html', { transforms: false }), (e: unknown) => e instanceof StatusError && e.status.code === 406);
    }
  });

  it('reads a body type given exactly or with parameters and any case', () => {
    assert.equal(negotiateInput('application/json', { patch: false }), 'json');
    assert.equal(negotiateInput('Application/JSON; charset=utf-8', { patch: false }), 'json');
    assert.equal(negotiateInput('application/merge-patch+json', { patch: true }), 'merge-patch');
    assert.throws(() => negotiateInput('application/merge-patch+json', { patch: false }), (e: unknown) => e instanceof StatusError && e.status.code === 415);
    assert.throws(() => negotiateInput('toString', { patch: false }), (e: unknown) => e instanceof StatusError && e.status.code === 415);
  });

  it('answers the usual application/json as the general path does: JSON, but no patch type', () => {
    assert.equal(negotiateInput('application/json', { patch: false }), 'json');
    assert.throws(
      () => negotiateInput('application/json', { patch: true }),
      (e: unknown) => e instanceof StatusError && e.code === 415 && e.status.message?.startsWith('the body of the request was in an unknown format - accepted media types include: application/json-patch+json') === true,
    );
    for (const transforms of [false, true]) {
      assert.deepEqual(negotiateOutput('application/json', { transforms }), { encoding: 'json', shape: 'object', contentType: 'application/json' });
      assert.equal(negotiateOutput('application/json', { transforms }), negotiateOutput('application/json;q=1', { transforms }));
    }
  });
});
