import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatRfc3339Nano } from '../clock.js';
import { CriLogStreamSplitter, parseCriLog } from './cri-log.js';

describe('CRI log format', () => {
  const T = 1_796_054_758_273_605_304n;
  const collect = (max?: number) => {
    const out: string[] = [];
    const s = new CriLogStreamSplitter('stdout', { write: (b) => out.push(b.toString()) }, max, () => T);
    return { s, out };
  };

  it('formats timestamps as Go RFC3339Nano (trailing zeros dropped)', () => {
    assert.equal(formatRfc3339Nano(T), '2026-11-30T16:05:58.273605304Z');
    assert.equal(formatRfc3339Nano(1_796_054_758_270_000_000n), '2026-11-30T16:05:58.27Z');
    assert.equal(formatRfc3339Nano(1_796_054_758_000_000_000n), '2026-11-30T16:05:58Z');
  });

  it('writes one F record per line, across chunk boundaries', () => {
    const { s, out } = collect();
    s.push(Buffer.from('hel'));
    s.push(Buffer.from('lo\n\nwor'));
    s.push(Buffer.from('ld\n'));
    s.end();
    assert.deepEqual(out, [`${formatRfc3339Nano(T)} stdout F hello\n`, `${formatRfc3339Nano(T)} stdout F \n`, `${formatRfc3339Nano(T)} stdout F world\n`]);
  });

  it('splits long lines into P parts and ends an unterminated line with F', () => {
    const { s, out } = collect(4);
    s.push(Buffer.from('abcdefghij\nxy'));
    s.end();
    assert.deepEqual(parseCriLog(out.join('')).map((r) => [r.tag, r.text]), [['P', 'abcd'], ['P', 'efgh'], ['F', 'ij'], ['F', 'xy']]);
    assert.throws(() => parseCriLog('garbage\n'), /not a CRI log line/);
  });
});
