import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveContainerPort } from './container-port.js';
import { ProbeError } from './probe-outcome.js';

const container = { name: 'app', ports: [{ name: 'http', containerPort: 8080 }, { name: 'bad', containerPort: 70000 }] };

describe('resolveContainerPort', () => {
  it('takes a number, a named port, or a number written as a string', () => {
    assert.equal(resolveContainerPort(9000, container), 9000);
    assert.equal(resolveContainerPort('http', container), 8080);
    assert.equal(resolveContainerPort('8081', container), 8081);
  });

  it("fails with upstream's text for an unknown name or a port out of range", () => {
    assert.throws(() => resolveContainerPort('metrics', container), (e: unknown) => e instanceof ProbeError && e.message === 'strconv.Atoi: parsing "metrics": invalid syntax');
    assert.throws(() => resolveContainerPort('bad', container), { message: 'invalid port number: 70000' });
    assert.throws(() => resolveContainerPort(0, container), { message: 'invalid port number: 0' });
    assert.throws(() => resolveContainerPort('metrics', { name: 'no-ports' }), { message: 'strconv.Atoi: parsing "metrics": invalid syntax' });
  });
});
