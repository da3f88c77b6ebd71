import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { certificateSigningRequestTable, csrCondition } from './table.js';

describe('certificateSigningRequestTable', () => {
  it('has upstream columns', () => {
    assertColumns(certificateSigningRequestTable, [
      ['Name', 'string', 'name', 0],
      ['Age', 'string', '', 0],
      ['SignerName', 'string', '', 0],
      ['Requestor', 'string', '', 0],
      ['RequestedDuration', 'string', '', 0],
      ['Condition', 'string', '', 0],
    ]);
  });

  it('prints the signer, the requestor, the duration and the condition', () => {
    const csr = { metadata: { name: 'node-csr', creationTimestamp: ago(2 * D) }, spec: { request: '', signerName: 'kubernetes.io/kube-apiserver-client-kubelet', username: 'system:bootstrap:abcdef', expirationSeconds: 3600 } };
    assert.deepEqual(certificateSigningRequestTable.cells(csr, NOW), ['node-csr', '2d', 'kubernetes.io/kube-apiserver-client-kubelet', 'system:bootstrap:abcdef', '60m', 'Pending']);
    const bare = { metadata: { name: 'x', creationTimestamp: ago(2 * D) }, spec: { request: '', signerName: '' } };
    assert.deepEqual(certificateSigningRequestTable.cells(bare, NOW), ['x', '2d', '<none>', '', '<none>', 'Pending']);
  });

  it('names the condition as upstream: Denied over Approved, then Failed and Issued', () => {
    const of = (types: string[], certificate?: string) => csrCondition({ spec: { request: '', signerName: '' }, status: { conditions: types.map((type) => ({ type, status: 'True' })), ...(certificate !== undefined ? { certificate } : {}) } });
    assert.equal(of([]), 'Pending');
    assert.equal(of(['Approved'], 'Y2VydA=='), 'Approved,Issued');
    assert.equal(of(['Approved', 'Denied']), 'Denied');
    assert.equal(of(['Approved', 'Failed']), 'Approved,Failed');
    assert.equal(of(['Denied', 'Failed'], 'Y2VydA=='), 'Denied,Failed,Issued');
    assert.equal(of(['Custom']), 'Pending');
  });
});
