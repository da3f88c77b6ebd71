import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

  it('builds the example app as localhost/hello:1.0, or under the names given', async () => {
    const dataDir = join(root, 'data-hello');
    assert.equal(await run(['build', 'hello', '--data-dir', dataDir]), 'localhost/hello:1.0\n');
    assert.match(readFileSync(join(dataDir, 'images', 'localhost', 'hello', '1.0', 'bin', 'hello'), 'utf8'), /^#!\/bin\/sh\n/);
    assert.match((await run(['list', '--data-dir', dataDir])).split('\n')[1]!, /^localhost\/hello\s+1\.0\s+[0-9a-f]{13}\s+/);
    assert.equal(await run(['build', 'hello', '--images-dir', join(root, 'other'), '--tag', 'localhost/hello:2.0']), 'localhost/hello:2.0\n');
  });

  it('refuses to build anything but busybox and hello', async () => {
    await assert.rejects(run(['build', 'nginx', '--images-dir', join(root, 'x')]), /invalid/i);
  });

  describe('import (containerd)', () => {
    // A stand-in for ctr that records its arguments: the real import runs in test/e2e/kubelet/runtime-cri-images.test.ts.
    const ctrLog = join(root, 'ctr.log');
    const fakeCtr = join(root, 'ctr');
    writeFileSync(fakeCtr, `#!/bin/sh\necho "$@" >> ${ctrLog}\n`, { mode: 0o755 });
    const failingCtr = join(root, 'ctr-failing');
    writeFileSync(failingCtr, '#!/bin/sh\necho "ctr: connection refused" >&2\nexit 1\n', { mode: 0o755 });

    it('builds the pause and busybox archives with every tag and imports each into k8s.io', async () => {
      const imagesDir = join(root, 'oci-images');
      const out = await run(['import', 'pause', 'busybox', '--images-dir', imagesDir, '--containerd-address', '/run/x.sock', '--ctr', fakeCtr]);
      assert.equal(out, 'registry.k8s.io/pause:3.6\ndocker.io/library/busybox:1.35\ndocker.io/library/busybox:latest\n');
      const archives = { pause: join(imagesDir, 'oci', 'pause.tar'), busybox: join(imagesDir, 'oci', 'busybox.tar') };
      assert.deepEqual(readFileSync(ctrLog, 'utf8').trim().split('\n'), [
        `--address /run/x.sock --namespace k8s.io images import ${archives.pause}`,
        `--address /run/x.sock --namespace k8s.io images import ${archives.busybox}`,
      ]);
      const manifest = (tar: string) => JSON.parse(execFileSync('tar', ['-xOf', tar, 'manifest.json'], { encoding: 'utf8' })) as { RepoTags: string[]; Config: string }[];
      assert.deepEqual(manifest(archives.busybox)[0]?.RepoTags, ['docker.io/library/busybox:1.35', 'docker.io/library/busybox:latest']);
      const pause = manifest(archives.pause)[0]!;
      assert.deepEqual(pause.RepoTags, ['registry.k8s.io/pause:3.6']);
      const config = JSON.parse(execFileSync('tar', ['-xOf', archives.pause, pause.Config], { encoding: 'utf8' })) as { config: { User: string; Entrypoint: string[] } };
      assert.deepEqual([config.config.User, config.config.Entrypoint], ['65535:65535', ['/pause']]);
      // A second import reuses the archives.
      const before = statSync(archives.pause).mtimeMs;
      await run(['import', 'pause', '--images-dir', imagesDir, '--containerd-address', 'unix:///run/x.sock', '--ctr', fakeCtr]);
      assert.equal(statSync(archives.pause).mtimeMs, before);
      assert.match(readFileSync(ctrLog, 'utf8').trim().split('\n').at(-1)!, /^--address \/run\/x\.sock /);
    });

    it('needs --containerd-address, a known image, and says what failed', async () => {
      await assert.rejects(run(['import', 'pause', '--images-dir', join(root, 'y')]), /containerd-address/);
      await assert.rejects(run(['import', 'nginx', '--containerd-address', '/x.sock']), /invalid/i);
      await assert.rejects(
        run(['import', 'pause', '--images-dir', join(root, 'oci-images'), '--containerd-address', '/x.sock', '--ctr', failingCtr]),
        /images import .*pause\.tar: ctr: connection refused/,
      );
      await assert.rejects(
        run(['import', 'pause', '--images-dir', join(root, 'oci-images'), '--containerd-address', '/x.sock', '--ctr', join(root, 'no-such-ctr')]),
        /not found/,
      );
    });
  });
});
