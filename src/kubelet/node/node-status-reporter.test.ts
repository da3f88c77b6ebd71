import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NODES } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { newLogger } from '../../machinery/logger.js';
import type { RuntimeStatus } from '../runtime/interface.js';
import type { Node } from '../types.js';
import type { NodeStatusInputs } from './node-status.js';
import { newNodeStatusReporter } from './node-status-reporter.js';

const logger = newLogger('test', { level: 'silent' });
const status = (network: boolean): RuntimeStatus => ({
  conditions: [
    { type: 'RuntimeReady', status: true, reason: '', message: '' },
    { type: 'NetworkReady', status: network, reason: network ? '' : 'NoPodCIDR', message: '' },
  ],
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('node status reporter', () => {
  it('patches nodes/status without reading first, only when the status changed or the report period passed', async () => {
    const client = newFakeClient();
    client.seed(NODES, [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a', uid: 'u' } } as Node]);
    let network = false;
    let now = 0;
    /** How many times the reporter computed the status (once a tick). */
    let reads = 0;
    const inputs = async (): Promise<NodeStatusInputs> => {
      reads++;
      return {
        nodeIP: '127.0.0.1',
        hostname: 'node-a',
        machine: { cpus: 1, memoryBytes: 1024 ** 3, ephemeralStorageBytes: 0, kernelVersion: 'k', osImage: 'o', operatingSystem: 'linux', architecture: 'amd64', machineID: '', bootID: '', systemUUID: '' },
        maxPods: 110,
        kubeletPort: 10250,
        runtimeVersion: undefined,
        runtimeStatus: status(network),
        images: [],
      };
    };
    const written: Node[] = [];
    const transitions: string[] = [];
    const reporter = newNodeStatusReporter({
      client,
      nodeName: 'node-a',
      inputs,
      updateFrequencyMs: 5,
      reportFrequencyMs: 60_000,
      logger,
      now: () => now,
      onNode: (n) => written.push(n),
      onWritten: (s, previous) => transitions.push(`${previous === undefined ? 'first' : 'next'}:${s.conditions?.find((c) => c.type === 'Ready')?.status}`),
    });
    const abort = new AbortController();
    const running = reporter.run(abort.signal);
    await until(() => written.length === 1, 'the first write');
    const patches = () => client.actionsOf('patch', 'nodes/status');
    assert.equal(patches().length, 1);
    assert.equal(patches()[0]!.patchType, 'strategic');
    // Ticks with nothing changed write nothing.
    now += 1_000;
    const readsBefore = reads;
    await until(() => reads >= readsBefore + 3, 'three more ticks');
    assert.equal(patches().length, 1);
    network = true;
    reporter.poke();
    await until(() => written.length === 2, 'the write of the change');
    assert.equal(written[1]!.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    now += 60_000;
    await until(() => written.length === 3, 'the periodic report');
    assert.deepEqual(transitions, ['first:False', 'next:True', 'next:True']);
    abort.abort();
    await running;
  });
});
