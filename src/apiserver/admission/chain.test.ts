import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forbidden, StatusError } from '../../machinery/status.js';
import { newAdmissionChain } from './chain.js';
import type { AdmissionAttributes, MutatingAdmissionPlugin, ValidatingAdmissionPlugin } from './interfaces.js';

function attributes(operation: AdmissionAttributes['operation'] = 'CREATE'): AdmissionAttributes {
  return {
    operation,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: 'default',
    name: 'web',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: {} } },
    oldObject: undefined,
    dryRun: false,
    userInfo: { name: 'alice', groups: [] },
    addWarning: () => {},
    addAuditAnnotation: () => {},
  };
}

describe('admission chain', () => {
  it('runs mutating plugins in order on the object, then validating ones, only for the operations they handle', async () => {
    const seen: string[] = [];
    const label = (name: string): MutatingAdmissionPlugin => ({
      name,
      handles: (op) => op === 'CREATE',
      admit: (a) => {
        seen.push(name);
        (a.object!.metadata.labels as Record<string, string>)[name] = 'yes';
      },
    });
    const check: ValidatingAdmissionPlugin = { name: 'Check', handles: () => true, validate: (a) => void seen.push(`check ${Object.keys(a.object?.metadata.labels ?? {}).join(',')}`) };
    const chain = newAdmissionChain([label('First'), check, label('Second')]);
    const a = attributes();
    await chain.admit(a);
    await chain.validate(a);
    assert.deepEqual(seen, ['First', 'Second', 'check First,Second']);
    seen.length = 0;
    await chain.admit(attributes('DELETE'));
    assert.deepEqual(seen, []);
    assert.deepEqual(chain.names, ['First', 'Check', 'Second']);
  });

  it('stops at the first refusal and answers with its Status', async () => {
    let after = false;
    const chain = newAdmissionChain([
      { name: 'Deny', handles: () => true, validate: () => { throw forbidden({ group: '', resource: 'pods' }, 'web', 'not today'); } } as ValidatingAdmissionPlugin,
      { name: 'After', handles: () => true, validate: () => void (after = true) } as ValidatingAdmissionPlugin,
    ]);
    await assert.rejects(chain.validate(attributes()), (e: unknown) => e instanceof StatusError && e.code === 403 && e.message === 'pods "web" is forbidden: not today');
    assert.equal(after, false);
  });

  it('turns a plugin\'s unexpected failure into a 500 that names the plugin', async () => {
    const chain = newAdmissionChain([{ name: 'Broken', handles: () => true, admit: () => { throw new TypeError('cannot read x'); } } as MutatingAdmissionPlugin]);
    await assert.rejects(chain.admit(attributes()), (e: unknown) => e instanceof StatusError && e.code === 500 && /admission plugin "Broken" failed: cannot read x/.test(e.message));
  });

  it('runs synchronous plugins without waiting, and waits for a plugin that returns a promise before the next', async () => {
    const seen: string[] = [];
    const sync = (name: string): MutatingAdmissionPlugin => ({ name, handles: () => true, admit: () => void seen.push(name) });
    const slow: MutatingAdmissionPlugin = {
      name: 'Slow',
      handles: () => true,
      admit: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        seen.push('Slow');
      },
    };
    const chain = newAdmissionChain([sync('A'), sync('B'), slow, sync('C')]);
    const admitted = chain.admit(attributes());
    assert.ok(admitted instanceof Promise);
    assert.deepEqual(seen, ['A', 'B']);
    await admitted;
    assert.deepEqual(seen, ['A', 'B', 'Slow', 'C']);
  });

  it('answers a refusal after an asynchronous plugin as before: the StatusError as it is, anything else a 500 naming the plugin', async () => {
    const wait: ValidatingAdmissionPlugin = { name: 'Wait', handles: () => true, validate: () => new Promise((resolve) => setImmediate(resolve)) };
    const refuse: ValidatingAdmissionPlugin = { name: 'Refuse', handles: () => true, validate: () => { throw forbidden({ group: '', resource: 'pods' }, 'web', 'not today'); } };
    await assert.rejects(newAdmissionChain([wait, refuse]).validate(attributes()), (e: unknown) => e instanceof StatusError && e.code === 403);
    const failsLater: ValidatingAdmissionPlugin = { name: 'FailsLater', handles: () => true, validate: async () => { throw new Error('lost'); } };
    let after = false;
    const next: ValidatingAdmissionPlugin = { name: 'Next', handles: () => true, validate: () => void (after = true) };
    await assert.rejects(newAdmissionChain([wait, failsLater, next]).validate(attributes()), (e: unknown) => e instanceof StatusError && e.code === 500 && /admission plugin "FailsLater" failed: lost/.test(e.message));
    assert.equal(after, false);
  });
});
