import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Command, CommandResult, CommandRunner } from './command-runner.js';
import { describeRestoreFailure, newIptablesProxier } from './iptables-proxier.js';
import { JUMP_RULES } from './jump-rules.js';
import { endpoint, proxyState, servicePort } from './testing/proxy-state.js';

/** A runner that records commands and answers iptables-save with `saved` and iptables-restore with `restore`. */
function fakeRunner(over: { saved?: string; restore?: (input: string) => CommandResult; save?: () => CommandResult } = {}) {
  const calls: Command[] = [];
  const runner: CommandRunner = async (command) => {
    calls.push(command);
    if (command.file === 'iptables-save') return over.save?.() ?? { code: 0, stdout: over.saved ?? '', stderr: '' };
    return over.restore?.(command.stdin ?? '') ?? { code: 0, stdout: '', stderr: '' };
  };
  const restores = (): string[] => calls.filter((c) => c.file === 'iptables-restore').map((c) => c.stdin ?? '');
  return { runner, calls, restores };
}

const web = servicePort();
const three = [endpoint('10.180.0.1'), endpoint('10.180.0.2'), endpoint('10.180.0.3')];

describe('newIptablesProxier', () => {
  it('first reads the tables, then writes every chain and every missing jump rule with iptables-restore --noflush', async () => {
    const fake = fakeRunner();
    const proxier = newIptablesProxier({ runner: fake.runner });
    assert.equal(proxier.mode, 'iptables');
    const result = await proxier.sync(proxyState([[web, three]]));
    assert.deepEqual(fake.calls.map((c) => [c.file, ...c.args].join(' ')), ['iptables-save', 'iptables-restore --wait=5 --noflush']);
    const input = fake.restores()[0] ?? '';
    for (const jump of JUMP_RULES) assert.ok(input.includes(`-I ${jump.chain} `) && input.includes(`-j ${jump.target}`), jump.target);
    assert.equal(input.split('\n').filter((l) => l.startsWith('-I ')).length, JUMP_RULES.length);
    assert.ok(input.includes(':KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]'));
    assert.equal(result.servicePorts, 1);
    assert.equal(result.endpoints, 3);
    assert.equal(result.applied, true);
    assert.equal(result.fullSync, true);
    assert.equal(result.chainsWritten, 9 + 4); // 5 filter + 4 nat top-level chains, SVC and 3 SEP
    assert.equal(result.chainsDeleted, 0);
    assert.ok(result.totalMs >= result.iptablesMs && result.generateMs >= 0);
    assert.deepEqual(result.problems, []);
  });

  it('does not insert jump rules that exist, and deletes per-Service chains an earlier proxier left', async () => {
    const saved = [
      '*nat',
      ':PREROUTING ACCEPT [0:0]',
      ':KUBE-SVC-GONEGONEGONEGONE - [0:0]',
      ':KUBE-SEP-GONEGONEGONEGONE - [0:0]',
      ':DOCKER - [0:0]',
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
      'COMMIT',
      '',
    ].join('\n');
    const fake = fakeRunner({ saved });
    const result = await newIptablesProxier({ runner: fake.runner }).sync(proxyState([]));
    const input = fake.restores()[0] ?? '';
    assert.ok(!input.includes('-I PREROUTING'));
    assert.ok(input.includes('-I OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'));
    assert.ok(input.includes('-X KUBE-SVC-GONEGONEGONEGONE\n'));
    assert.ok(input.includes('-X KUBE-SEP-GONEGONEGONEGONE\n'));
    assert.ok(!input.includes('DOCKER'));
    assert.equal(result.chainsDeleted, 2);
  });

  it('writes nothing when the rule set did not change, and only the changed chains when it did', async () => {
    const fake = fakeRunner();
    const proxier = newIptablesProxier({ runner: fake.runner });
    await proxier.sync(proxyState([[web, three]]));
    const same = await proxier.sync(proxyState([[web, [...three].reverse()]]));
    assert.equal(same.applied, false);
    assert.equal(same.fullSync, false);
    assert.equal(fake.restores().length, 1);

    const notReady = await proxier.sync(proxyState([[web, [three[0]!, three[1]!, endpoint('10.180.0.3', { ready: false, serving: false })]]]));
    assert.equal(notReady.applied, true);
    assert.equal(notReady.chainsWritten, 1); // KUBE-SVC only
    assert.equal(notReady.chainsDeleted, 1); // the not-ready endpoint's KUBE-SEP
    const delta = fake.restores()[1] ?? '';
    assert.ok(delta.startsWith('*nat\n:KUBE-SEP-'), delta);
    assert.ok(delta.includes('\n:KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]\n'), delta);
    assert.ok(!delta.includes('*filter'));
    assert.equal(fake.calls.filter((c) => c.file === 'iptables-save').length, 1);
  });

  it('rejects with iptables-restore\'s message and the failing input line, and writes everything again on the next sync', async () => {
    let fail = true;
    const fake = fakeRunner({
      restore: () => (fail ? { code: 2, stdout: '', stderr: 'iptables-restore: line 3 failed\n' } : { code: 0, stdout: '', stderr: '' }),
    });
    const proxier = newIptablesProxier({ runner: fake.runner });
    await assert.rejects(proxier.sync(proxyState([[web, three]])), (err: Error) => {
      assert.equal(err.message, 'iptables-restore failed with exit code 2: iptables-restore: line 3 failed (input line 3: :KUBE-FORWARD - [0:0])');
      return true;
    });
    fail = false;
    const retry = await proxier.sync(proxyState([[web, three]]));
    assert.equal(retry.fullSync, true);
    assert.equal(fake.calls.filter((c) => c.file === 'iptables-save').length, 2);
  });

  it('a failed delta makes the next sync a full one', async () => {
    let fail = false;
    const fake = fakeRunner({ restore: () => ({ code: fail ? 1 : 0, stdout: '', stderr: fail ? 'Another app is currently holding the xtables lock' : '' }) });
    const proxier = newIptablesProxier({ runner: fake.runner });
    await proxier.sync(proxyState([[web, three]]));
    fail = true;
    await assert.rejects(proxier.sync(proxyState([[web, three.slice(0, 2)]])), /exit code 1: Another app is currently holding the xtables lock$/);
    fail = false;
    const next = await proxier.sync(proxyState([[web, three.slice(0, 2)]]));
    assert.equal(next.fullSync, true);
    assert.equal(next.applied, true);
  });

  it('makes a sync full again once fullSyncIntervalMs has passed since the last full one', async () => {
    let clock = 1_000_000;
    const fake = fakeRunner();
    const proxier = newIptablesProxier({ runner: fake.runner, fullSyncIntervalMs: 60_000, now: () => clock });
    assert.equal((await proxier.sync(proxyState([[web, three]]))).fullSync, true);
    clock += 59_999;
    const partial = await proxier.sync(proxyState([[web, three]]));
    assert.equal(partial.fullSync, false);
    assert.equal(partial.applied, false);
    clock += 1;
    const full = await proxier.sync(proxyState([[web, three]]));
    assert.equal(full.fullSync, true);
    assert.equal(full.applied, true);
    assert.equal(fake.calls.filter((c) => c.file === 'iptables-save').length, 2);
  });

  it('rejects when iptables-save fails, without restoring anything', async () => {
    const fake = fakeRunner({ save: () => ({ code: 1, stdout: '', stderr: 'iptables-save: permission denied (you must be root)\n' }) });
    await assert.rejects(newIptablesProxier({ runner: fake.runner }).sync(proxyState([])), /iptables-save failed with exit code 1: iptables-save: permission denied/);
    assert.equal(fake.restores().length, 0);
  });

  it('rejects clearly when the iptables binaries are missing', async () => {
    const proxier = newIptablesProxier({ saveCommand: '/nonexistent/iptables-save', restoreCommand: '/nonexistent/iptables-restore' });
    await assert.rejects(proxier.sync(proxyState([])), /\/nonexistent\/iptables-save not found: is it installed and on PATH\?/);
  });

  it('runs one sync at a time, in call order', async () => {
    const order: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const runner: CommandRunner = async (c) => {
      if (c.file === 'iptables-restore') {
        order.push(c.stdin?.includes('10.180.0.3') === true ? 'three' : 'two');
        if (order.length === 1) await gate;
      }
      return { code: 0, stdout: '', stderr: '' };
    };
    const proxier = newIptablesProxier({ runner });
    const first = proxier.sync(proxyState([[web, three]]));
    const second = proxier.sync(proxyState([[web, three.slice(0, 2)]]));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['three']);
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['three', 'two']);
  });

  it('close deletes the jump rules and every chain of ours it finds, and refuses later syncs', async () => {
    const saved = [
      '*filter',
      ':INPUT ACCEPT [0:0]',
      ':KUBE-FORWARD - [0:0]',
      ':OTHER - [0:0]',
      '-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS',
      '-A OTHER -j ACCEPT',
      'COMMIT',
      '*nat',
      ':OUTPUT ACCEPT [0:0]',
      ':KUBE-SERVICES - [0:0]',
      ':KUBE-SEP-AAAAAAAAAAAAAAAA - [0:0]',
      '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
      '-A KUBE-SERVICES -j KUBE-SEP-AAAAAAAAAAAAAAAA',
      'COMMIT',
      '',
    ].join('\n');
    const fake = fakeRunner({ saved });
    const proxier = newIptablesProxier({ runner: fake.runner });
    await proxier.close();
    assert.equal(
      fake.restores()[0],
      [
        '*filter',
        ':KUBE-FORWARD - [0:0]',
        '-D INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS',
        '-X KUBE-FORWARD',
        'COMMIT',
        '*nat',
        ':KUBE-SERVICES - [0:0]',
        ':KUBE-SEP-AAAAAAAAAAAAAAAA - [0:0]',
        '-D OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
        '-X KUBE-SERVICES',
        '-X KUBE-SEP-AAAAAAAAAAAAAAAA',
        'COMMIT',
        '',
      ].join('\n'),
    );
    await assert.rejects(proxier.sync(proxyState([])), /the iptables proxier is closed/);
    await proxier.close(); // a second close does nothing
    assert.equal(fake.restores().length, 1);
  });

  it('close with nothing of ours in the tables runs no restore', async () => {
    const fake = fakeRunner({ saved: '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n' });
    await newIptablesProxier({ runner: fake.runner }).close();
    assert.equal(fake.restores().length, 0);
  });

  it('close rejects when the rules cannot be removed', async () => {
    const fake = fakeRunner({ saved: '*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n', restore: () => ({ code: 1, stdout: '', stderr: 'iptables-restore: line 3 failed\n' }) });
    await assert.rejects(newIptablesProxier({ runner: fake.runner }).close(), /line 3 failed \(input line 3: -X KUBE-SERVICES\)/);
  });
});

describe('describeRestoreFailure', () => {
  it('quotes the first stderr line, and no input line when none is named', () => {
    assert.equal(describeRestoreFailure('iptables-restore', { code: 4, stdout: '', stderr: '' }, 'x'), 'iptables-restore failed with exit code 4: no output');
    assert.equal(
      describeRestoreFailure('iptables-restore', { code: 1, stdout: '', stderr: '\nBad argument `foo\'\nError occurred at line: 2\n' }, '*nat\n-A X foo\nCOMMIT\n'),
      "iptables-restore failed with exit code 1: Bad argument `foo' (input line 2: -A X foo)",
    );
  });
});
