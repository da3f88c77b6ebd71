import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { COMPONENT_V8_FLAGS_ENV, componentV8Flags, DEFAULT_COMPONENT_V8_FLAGS, LIFELINE_ENV } from './supervisor.js';

const SUPERVISOR = fileURLToPath(new URL('./supervisor.js', import.meta.url));

describe('the lifeline of a supervised child', () => {
  it('stops the child (as on SIGTERM) when the supervisor end of the pipe closes', async () => {
    const script = `
      const { exitWithParent } = await import(${JSON.stringify(SUPERVISOR)});
      process.on('SIGTERM', () => { console.log('SIGTERM, env ' + String(process.env.${LIFELINE_ENV})); process.exit(0); });
      exitWithParent();
      console.log('ready');
      setInterval(() => undefined, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'], env: { ...process.env, [LIFELINE_ENV]: '3' } });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve) => child.stdout!.on('data', () => output.includes('ready') && resolve()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    (child.stdio[3] as Socket).destroy();
    assert.equal(await exited, 0);
    assert.match(output, /SIGTERM, env undefined/, 'the variable is not passed on to the child\'s own children');
  });

  it('does nothing in a process nobody supervises', async () => {
    const script = `
      const { exitWithParent } = await import(${JSON.stringify(SUPERVISOR)});
      exitWithParent();
      console.log('done');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [LIFELINE_ENV]: '' } });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    assert.equal(await new Promise((resolve) => child.on('exit', resolve)), 0);
    assert.equal(output.trim(), 'done');
  });
});

describe('the V8 flags of the components', () => {
  it('are the defaults unless the environment gives others, and none when it gives an empty list', () => {
    assert.deepEqual(componentV8Flags({}), DEFAULT_COMPONENT_V8_FLAGS);
    assert.deepEqual(DEFAULT_COMPONENT_V8_FLAGS, ['--interrupt-budget=1081344']);
    assert.deepEqual(componentV8Flags({ [COMPONENT_V8_FLAGS_ENV]: '' }), []);
    assert.deepEqual(componentV8Flags({ [COMPONENT_V8_FLAGS_ENV]: ' --max-opt=2   --stack-size=900 ' }), ['--max-opt=2', '--stack-size=900']);
  });
});
