import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Command } from 'commander';
import { waitFor } from '../client/testing/wait-for.js';
import { connect } from 'node:net';
import { shimdSocketName } from '../kubelet/runtime/process/shimd-protocol.js';
import { newRuntime } from './kubelet.js';
import { addKubeletFlags, type KubeletFlags } from './kubelet-flags.js';

const flags = (args: string[]): KubeletFlags => {
  const command = addKubeletFlags(new Command('kubelet')).exitOverride();
  command.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  command.parse(['--kubeconfig', 'k', ...args], { from: 'user' });
  return command.opts<KubeletFlags>();
};

describe('newRuntime: the runtime --container-runtime names', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-kubelet-runtime-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('process (the default): host processes, state under <root-dir>/runtime, its shim daemon booted at once', async () => {
    const runtime = newRuntime(flags(['--images-dir', join(root, 'images')]), root);
    try {
      assert.equal(runtime.name, 'process');
      assert.equal((await runtime.runtime.version()).runtimeName, 'k8ts-process');
      // Nothing was started, yet the daemon of <root-dir>/runtime listens.
      const listening = (): Promise<boolean> =>
        new Promise((resolve) => {
          const socket = connect(shimdSocketName(join(root, 'runtime')));
          socket.once('connect', () => {
            socket.destroy();
            resolve(true);
          });
          socket.once('error', () => resolve(false));
        });
      await waitFor(listening, { timeoutMs: 20_000 });
    } finally {
      await runtime.close();
    }
  });

  it('cri: a client of the endpoint given (connecting lazily)', async () => {
    const runtime = newRuntime(flags(['--container-runtime', 'cri', '--container-runtime-endpoint', `unix://${join(root, 'no-containerd.sock')}`]), root);
    try {
      assert.equal(runtime.name, 'cri');
    } finally {
      await runtime.close();
    }
  });

  it('sim: simulated containers, no processes', async () => {
    const runtime = newRuntime(flags(['--container-runtime', 'sim', '--node-name', 'sim-node-1']), root);
    try {
      assert.equal(runtime.name, 'sim');
      assert.deepEqual(await runtime.runtime.listContainers(), []);
    } finally {
      await runtime.close();
    }
  });

  it('refuses a runtime it does not know', () => {
    assert.throws(() => flags(['--container-runtime', 'docker']), /docker/);
  });
});
