import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { imageCommand } from './image.js';

/** Runs `k8ts image …` in-process, capturing what it prints. */
async function run(args: string[]): Promise<string> {
  const out: string[] = [];
  const sink = { write: (s: string) => out.push(s) };
  const command = imageCommand({ out: sink, err: { write: () => true } });
  for (const c of [command, ...command.commands]) c.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  await command.parseAsync(args, { from: 'user' });
  return out.join('');
}

describe('k8ts image', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-image-cmd-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const fake = join(root, 'busybox');
  writeFileSync(fake, '#!/bin/sh\nprintf "sh\\nhttpd\\n"\n', { mode: 0o755 });

  it('builds busybox under <data-dir>/images, lists and removes it', async () => {
    const dataDir = join(root, 'data');
    assert.equal(await run(['build', 'busybox', '--data-dir', dataDir, '--busybox', fake]), 'docker.io/library/busybox:1.35\ndocker.io/library/busybox:latest\n');
    const listing = (await run(['list', '--data-dir', dataDir])).split('\n');
    assert.match(listing[0]!, /^IMAGE\s+TAG\s+IMAGE ID\s+SIZE$/);
    assert.match(listing[1]!, /^docker\.io\/library\/busybox\s+1\.35\s+[0-9a-f]{13}\s+/);
    await run(['rm', 'busybox:latest', '--data-dir', dataDir]);
    assert.equal((await run(['list', '--data-dir', dataDir])).trim().split('\n').length, 2);
  });

  it('refuses to build anything but busybox', async () => {
    await assert.rejects(run(['build', 'nginx', '--images-dir', join(root, 'x')]), /invalid/i);
  });
});
