import { waitFor } from '../../client/testing/wait-for.js';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { canonicalTimestamp, parseCriLogLine, parseRfc3339Nanos, readCriLog, type LogReadOptions } from './cri-log-reader.js';

const LOG = [
  '2026-11-30T10:00:00.100000000Z stdout F one',
  '2026-11-30T10:00:01Z stderr F two',
  '2026-11-30T10:00:02.5Z stdout P par',
  '2026-11-30T10:00:02.600Z stdout F tial',
  'garbage line',
  '2026-11-30T10:00:03.000000001Z stdout F ',
].join('\n') + '\n';

describe('CRI log reader', () => {
  let dir: string;
  let path: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cri-log-'));
    path = join(dir, '0.log');
    await writeFile(path, LOG);
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  const read = async (options: Partial<LogReadOptions>, file = path): Promise<string> => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await readCriLog(file, out, { timestamps: false, follow: false, exited: async () => true, ...options });
    return Buffer.concat(chunks).toString();
  };

  it('parses records and RFC3339Nano times', () => {
    assert.deepEqual(parseCriLogLine(Buffer.from('2026-11-30T10:00:00Z stdout F a b')), {
      timestamp: '2026-11-30T10:00:00Z',
      nanos: parseRfc3339Nanos('2026-11-30T10:00:00Z'),
      stream: 'stdout',
      partial: false,
      text: Buffer.from('a b'),
    });
    assert.equal(parseCriLogLine(Buffer.from('2026-11-30T10:00:00Z stdin F a')), undefined);
    assert.equal(parseRfc3339Nanos('2026-11-30T10:00:00.000000001+01:00'), BigInt(Date.parse('2026-11-30T09:00:00Z')) * 1_000_000n + 1n);
    assert.equal(canonicalTimestamp('2026-11-30T10:00:00.100000000Z'), '2026-11-30T10:00:00.1Z');
    assert.equal(canonicalTimestamp('2026-11-30T10:00:00.000Z'), '2026-11-30T10:00:00Z');
  });

  it('gives back the text, joining partial records and skipping what is not a record', async () => {
    assert.equal(await read({}), 'one\ntwo\npartial\n\n');
  });

  it('prefixes each line with its timestamp', async () => {
    assert.equal(
      await read({ timestamps: true }),
      '2026-11-30T10:00:00.1Z one\n2026-11-30T10:00:01Z two\n2026-11-30T10:00:02.5Z partial\n2026-11-30T10:00:03.000000001Z \n',
    );
  });

  it('keeps the last tailLines records, those since a time, and at most limitBytes', async () => {
    assert.equal(await read({ tailLines: 2 }), 'tial\n\n');
    assert.equal(await read({ tailLines: 0 }), '');
    assert.equal(await read({ since: parseRfc3339Nanos('2026-11-30T10:00:01Z')! }), 'two\npartial\n\n');
    assert.equal(await read({ limitBytes: 6 }), 'one\ntw');
  });

  it('reads nothing from a log not yet written', async () => {
    assert.equal(await read({}, join(dir, 'missing.log')), '');
  });

  it('follows appended records until the container has exited', async () => {
    const file = join(dir, 'follow.log');
    await writeFile(file, '2026-11-30T10:00:00Z stdout F first\n');
    let exited = false;
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const done = readCriLog(file, out, { timestamps: false, follow: true, pollIntervalMs: 5, exited: async () => exited });
    await waitFor(() => text.includes('first'), { timeoutMs: 10_000, intervalMs: 5, description: 'the first line followed' });
    await appendFile(file, '2026-11-30T10:00:01Z stdout F second\n');
    await waitFor(() => text.includes('second'), { timeoutMs: 10_000, intervalMs: 5, description: 'the appended line followed' });
    await appendFile(file, '2026-11-30T10:00:02Z stdout F last\n');
    exited = true;
    await done;
    assert.equal(text, 'first\nsecond\nlast\n');
  });

  it('stops following when aborted', async () => {
    const aborted = new AbortController();
    const done = readCriLog(path, new PassThrough(), { timestamps: false, follow: true, pollIntervalMs: 5, exited: async () => false, signal: aborted.signal });
    aborted.abort();
    await done;
  });
});
