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
});
