import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exitOfCommand, SIM_EXEC_EXIT_CODE, SIM_EXIT_AFTER_MS, SIM_EXIT_CODE, SIM_START_ERROR, SIM_START_LATENCY_MS, simProgramOf } from './sim-program.js';

describe('sim programs', () => {
  it('reads exits from the simple commands pod specs use', () => {
    assert.deepEqual(exitOfCommand(['/bin/sh', '-c', 'exit 7']), { code: 7, afterMs: 0 });
    assert.deepEqual(exitOfCommand(['sh', '-c', 'sleep 1.5; exit 3']), { code: 3, afterMs: 1500 });
    assert.deepEqual(exitOfCommand(['sh', '-c', 'sleep 2 && exit 0']), { code: 0, afterMs: 2000 });
    assert.deepEqual(exitOfCommand(['sh', '-c', 'sleep 2']), { code: 0, afterMs: 2000 });
    assert.deepEqual(exitOfCommand(['sleep', '0.25']), { code: 0, afterMs: 250 });
    assert.deepEqual(exitOfCommand(['true']), { code: 0, afterMs: 0 });
    assert.deepEqual(exitOfCommand(['/bin/false']), { code: 1, afterMs: 0 });
    assert.deepEqual(exitOfCommand(['sh', '-c', 'echo "kept $X"; sleep 1; printf x; sleep 0.5; exit 2']), { code: 2, afterMs: 1500 });
    assert.deepEqual(exitOfCommand(['sh', '-c', 'echo hello']), { code: 0, afterMs: 0 });
    assert.equal(exitOfCommand(['sh', '-c', 'while true; do sleep 1; done']), undefined);
    assert.equal(exitOfCommand(['sh', '-c', 'exit 1; echo never']), undefined);
    assert.equal(exitOfCommand(['sh', '-c', 'echo $(sleep 100)']), undefined);
    assert.equal(exitOfCommand(['sh', '-c', 'yes | head']), undefined);
    assert.equal(exitOfCommand(['sh', '-c', 'trap "exit 0" TERM; sleep 5']), undefined);
    assert.equal(exitOfCommand(['httpd', '-f']), undefined);
    assert.equal(exitOfCommand(['sleep', 'infinity']), undefined);
    assert.equal(exitOfCommand([]), undefined);
  });

  it('lets annotations override the command, the container\'s before the sandbox\'s, per container name first', () => {
    const base = { containerName: 'web', argv: ['sh', '-c', 'exit 1'] };
    assert.deepEqual(simProgramOf({ ...base, containerAnnotations: {}, sandboxAnnotations: {} }), { exit: { code: 1, afterMs: 0 }, execExitCode: 0 });
    assert.deepEqual(
      simProgramOf({ ...base, containerAnnotations: { [SIM_EXIT_CODE]: '4' }, sandboxAnnotations: { [SIM_EXIT_CODE]: '5', [SIM_EXIT_AFTER_MS]: '300' } }).exit,
      { code: 4, afterMs: 300 },
    );
    assert.deepEqual(simProgramOf({ ...base, containerAnnotations: {}, sandboxAnnotations: { [SIM_EXIT_CODE]: '5', [`${SIM_EXIT_CODE}.web`]: '6' } }).exit, { code: 6, afterMs: 0 });
    assert.deepEqual(simProgramOf({ ...base, argv: ['httpd'], containerAnnotations: {}, sandboxAnnotations: { [SIM_EXIT_AFTER_MS]: '10' } }).exit, { code: 0, afterMs: 10 });
    const p = simProgramOf({
      ...base,
      argv: ['httpd'],
      containerAnnotations: {},
      sandboxAnnotations: { [SIM_START_ERROR]: 'boom', [SIM_EXEC_EXIT_CODE]: '2', [SIM_START_LATENCY_MS]: '50' },
    });
    assert.deepEqual(p, { startError: 'boom', execExitCode: 2, startLatencyMs: 50 });
  });

  it('rejects malformed numbers in annotations', () => {
    assert.throws(() => simProgramOf({ containerName: 'c', argv: [], containerAnnotations: { [SIM_EXIT_CODE]: 'x' }, sandboxAnnotations: {} }), /sim\.k8ts\.io\/exit-code: want a non-negative integer/);
    assert.throws(() => simProgramOf({ containerName: 'c', argv: [], containerAnnotations: {}, sandboxAnnotations: { [SIM_EXIT_AFTER_MS]: '-1' } }), /exit-after-ms/);
  });
});
