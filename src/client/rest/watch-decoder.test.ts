import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WatchDecoder } from './watch-decoder.js';

describe('WatchDecoder', () => {
  const body = Buffer.from(
    '{"type":"ADDED","object":{"metadata":{"name":"é"}}}\n{"type":"MODIFIED","object":{"metadata":{"name":"b"}}}\n{"type":"DELETED","object":{}}\n',
  );
  it('yields the same events whatever the chunk boundaries, even inside a UTF-8 character', () => {
    for (let size = 1; size <= body.length; size++) {
      const decoder = new WatchDecoder();
      const events = [];
      for (let i = 0; i < body.length; i += size) events.push(...decoder.push(body.subarray(i, i + size)));
      events.push(...decoder.end());
      assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED'], `chunk size ${size}`);
      assert.equal((events[0]!.object as { metadata: { name: string } }).metadata.name, 'é');
    }
  });
  it('takes a last line without a newline at the end, and skips blank lines', () => {
    const decoder = new WatchDecoder();
    assert.deepEqual(decoder.push('\n{"type":"ADDED","object":{}}'), []);
    assert.deepEqual(decoder.end(), [{ type: 'ADDED', object: {} }]);
  });
  it('rejects a line that is not JSON or not an event', () => {
    assert.throws(() => new WatchDecoder().push('nope\n'), /not JSON: nope/);
    assert.throws(() => new WatchDecoder().push('[1]\n'), /not an event/);
  });
});
