import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newProgram, subcommandOf } from './k8ts.js';

describe('k8ts subcommands', () => {
  it('names the subcommand of an argv, and none for options, help or unknown words', () => {
    assert.equal(subcommandOf(['node', 'k8ts', 'kubelet', '--kubeconfig', 'x']), 'kubelet');
    assert.equal(subcommandOf(['node', 'k8ts', 'controller-manager']), 'controller-manager');
    assert.equal(subcommandOf(['node', 'k8ts', '--help']), undefined);
    assert.equal(subcommandOf(['node', 'k8ts', 'help', 'kubelet']), undefined);
    assert.equal(subcommandOf(['node', 'k8ts', 'bogus']), undefined);
    assert.equal(subcommandOf(['node', 'k8ts', 'toString']), undefined, 'not an inherited property');
    assert.equal(subcommandOf(['node', 'k8ts']), undefined);
  });

  it('loads only the subcommand asked for, and every one otherwise', async () => {
    assert.deepEqual((await newProgram('scheduler')).commands.map((c) => c.name()), ['scheduler']);
    assert.deepEqual(
      (await newProgram()).commands.map((c) => c.name()),
      ['server', 'agent', 'apiserver', 'controller-manager', 'scheduler', 'kubelet', 'proxy', 'dns', 'store', 'image', 'token'],
    );
  });
});
