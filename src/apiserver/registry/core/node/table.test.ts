import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node } from 'kubernetes-types/core/v1.js';
import { D, NOW, ago, assertColumns, cellsByName } from '../../printing/testing/table-assertions.js';
import { nodeTable } from './table.js';

function node(overrides: Partial<Node> = {}, ready: string | null = 'True'): Node {
  return {
    metadata: { name: 'node-1', creationTimestamp: ago(40 * D), labels: { 'kubernetes.io/hostname': 'node-1' } },
    status: {
      conditions: ready === null ? [] : [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: ready }],
      addresses: [
        { type: 'Hostname', address: 'node-1' },
        { type: 'InternalIP', address: '127.0.0.1' },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.33.0',
        osImage: 'Ubuntu 24.04 LTS',
        kernelVersion: '6.8.0-31-generic',
        containerRuntimeVersion: 'containerd://1.7.12',
        architecture: 'amd64', bootID: '', machineID: '', operatingSystem: 'linux', systemUUID: '', kubeProxyVersion: '',
      },
    },
    ...overrides,
  };
}

describe('nodeTable', () => {
  it('has upstream columns', () => {
    assertColumns(nodeTable, [
      ['Name', 'string', 'name', 0],
      ['Status', 'string', '', 0],
      ['Roles', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Version', 'string', '', 0],
      ['Internal-IP', 'string', '', 1],
      ['External-IP', 'string', '', 1],
      ['OS-Image', 'string', '', 1],
      ['Kernel-Version', 'string', '', 1],
      ['Container-Runtime', 'string', '', 1],
    ]);
  });

  it('prints a ready worker', () => {
    assert.deepEqual(nodeTable.cells(node(), NOW), [
      'node-1', 'Ready', '<none>', '40d', 'v1.33.0', '127.0.0.1', '<none>', 'Ubuntu 24.04 LTS', '6.8.0-31-generic', 'containerd://1.7.12',
    ]);
  });

  it('prints NotReady, Unknown and SchedulingDisabled', () => {
    assert.equal(cellsByName(nodeTable, node({}, 'False'))['Status'], 'NotReady');
    assert.equal(cellsByName(nodeTable, node({}, 'Unknown'))['Status'], 'NotReady');
    assert.equal(cellsByName(nodeTable, node({}, null))['Status'], 'Unknown');
    assert.equal(cellsByName(nodeTable, node({ spec: { unschedulable: true } }))['Status'], 'Ready,SchedulingDisabled');
    assert.equal(cellsByName(nodeTable, node({ spec: { unschedulable: true } }, 'False'))['Status'], 'NotReady,SchedulingDisabled');
  });

  it('reads roles from node-role labels and kubernetes.io/role, sorted and unique', () => {
    const n = node({
      metadata: {
        name: 'cp',
        labels: {
          'node-role.kubernetes.io/control-plane': '',
          'node-role.kubernetes.io/etcd': 'true',
          'node-role.kubernetes.io/': '',
          'kubernetes.io/role': 'control-plane',
        },
      },
    });
    assert.equal(cellsByName(nodeTable, n)['Roles'], 'control-plane,etcd');
    const legacy = node({ metadata: { name: 'w', labels: { 'kubernetes.io/role': 'worker' } } });
    assert.equal(cellsByName(nodeTable, legacy)['Roles'], 'worker');
  });

  it('prints the external IP and <unknown> for missing node info', () => {
    const n = node({
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'ExternalIP', address: '203.0.113.7' }],
      },
    });
    const c = cellsByName(nodeTable, n);
    assert.equal(c['Internal-IP'], '<none>');
    assert.equal(c['External-IP'], '203.0.113.7');
    assert.equal(c['Version'], '');
    assert.equal(c['OS-Image'], '<unknown>');
    assert.equal(c['Kernel-Version'], '<unknown>');
    assert.equal(c['Container-Runtime'], '<unknown>');
  });
});
