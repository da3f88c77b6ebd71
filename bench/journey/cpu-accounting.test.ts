import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuSecondsBetween, cpuSnapshot, groupOf, parseMachineTicks, parseProcStat, type CpuSnapshot, type ProcessFacts } from './cpu-accounting.js';

const facts = (pid: number, ppid: number, argv: string[]): ProcessFacts => ({ pid, ppid, argv, ticks: 0 });

test('groups: k8ts subcommands, shim daemons, their descendants, kubectl, the bench, the rest', () => {
  const all = [
    facts(10, 1, ['/usr/bin/node', '--enable-source-maps', '/repo/bin/k8ts.js', 'apiserver', '--data-dir', 'x']),
    facts(11, 1, ['/usr/bin/node', '/repo/bin/k8ts.js', 'kubelet']),
    facts(12, 1, ['/usr/bin/node', '/repo/dist/src/kubelet/runtime/process/shimd.js', '/state']),
    facts(13, 12, ['/usr/bin/node', '/images/hello/bin/hello.js']),
    facts(14, 13, ['sh', '-c', 'sleep 1']),
    facts(15, 1, ['/usr/lib/sdk/bin/kubectl.1.32', 'get', 'pods', '-w']),
    facts(16, 1, ['/usr/bin/node', 'dist/bench/journey/bench-journey.js']),
    facts(17, 1, ['/usr/sbin/sshd']),
    facts(18, 99, []),
  ];
  const byPid = new Map(all.map((f) => [f.pid, f]));
  assert.deepEqual(
    all.map((f) => groupOf(f, byPid, 16)),
    ['apiserver', 'kubelet', 'shimd', 'containers', 'containers', 'kubectl', 'bench', 'other', 'other'],
  );
});

test('a parent cycle in a racy snapshot ends the ancestor walk', () => {
  const a = facts(20, 21, ['x']);
  const b = facts(21, 20, ['y']);
  assert.equal(groupOf(a, new Map([[20, a], [21, b]]), 1), 'other');
});

test('/proc/PID/stat: parent pid and utime + stime, with spaces and parentheses in the command', () => {
  const line = '4242 (node (my app)) S 77 4242 4242 0 -1 4194304 100 0 0 0 123 45 0 0 20 0 11 0 100 0 0\n';
  assert.deepEqual(parseProcStat(line), { ppid: 77, ticks: 168 });
  assert.equal(parseProcStat('garbage'), undefined);
});

test('/proc/stat: busy ticks leave out idle and iowait', () => {
  const text = 'cpu  100 5 50 9000 300 7 3 2 0 0\ncpu0 50 2 25 4500 150 3 1 1 0 0\n';
  assert.equal(parseMachineTicks(text), 100 + 5 + 50 + 7 + 3 + 2);
  assert.ok(Number.isNaN(parseMachineTicks('intr 1 2 3\n')));
});

test('seconds between snapshots: new processes count from zero, the unaccounted busy time is other', () => {
  const before: CpuSnapshot = {
    processes: new Map([
      [1, { group: 'apiserver', ticks: 1000 }],
      [2, { group: 'kubelet', ticks: 50 }],
      [9, { group: 'kubectl', ticks: 30 }], // exits in between
    ]),
    machineTicks: 5000,
  };
  const after: CpuSnapshot = {
    processes: new Map([
      [1, { group: 'apiserver', ticks: 1250 }],
      [2, { group: 'kubelet', ticks: 150 }],
      [3, { group: 'kubelet', ticks: 40 }],
      [4, { group: 'containers', ticks: 20 }],
      [5, { group: 'other', ticks: 10 }],
    ]),
    machineTicks: 5500,
  };
  assert.deepEqual(cpuSecondsBetween(before, after), { apiserver: 2.5, kubelet: 1.4, containers: 0.2, other: 0.9, machine: 5 });
});

test('a real snapshot of this machine finds this process as the bench', { skip: process.platform !== 'linux' }, () => {
  const snapshot = cpuSnapshot();
  assert.ok(snapshot !== undefined);
  assert.equal(snapshot.processes.get(process.pid)?.group, 'bench');
  assert.ok(snapshot.machineTicks > 0);
});
