import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { waitFor } from '../../../client/testing/wait-for.js';
import { formatImageReference, parseImageReference, ProcessImageService } from './images.js';

describe('process runtime images', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-images-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('normalises names as docker does', () => {
    const norm = (n: string) => {
      const r = parseImageReference(n);
      return r && formatImageReference(r);
    };
    assert.equal(norm('busybox'), 'docker.io/library/busybox:latest');
    assert.equal(norm('busybox:1.35'), 'docker.io/library/busybox:1.35');
    assert.equal(norm('docker.io/library/busybox:1.35'), 'docker.io/library/busybox:1.35');
    assert.equal(norm('someone/tool:2'), 'docker.io/someone/tool:2');
    assert.equal(norm('registry.k8s.io/pause:3.6'), 'registry.k8s.io/pause:3.6');
    assert.equal(norm('localhost:5000/a/b'), 'localhost:5000/a/b:latest');
    assert.equal(norm('busybox@sha256:abc'), undefined);
    assert.equal(norm('../../etc:x'), undefined);
    assert.equal(norm(''), undefined);
  });

  it('lists, describes and removes image directories', async () => {
    const imagesDir = join(root, 'images');
    const dir = join(imagesDir, 'registry.k8s.io', 'tools', '1');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(join(dir, 'bin', 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(join(dir, 'image.json'), JSON.stringify({ user: '65535' }));
    mkdirSync(join(imagesDir, 'docker.io', 'library', 'empty', '1'), { recursive: true }); // no bin/: not an image
    const images = new ProcessImageService(imagesDir);
    const listed = await images.listImages();
    assert.equal(listed.length, 1);
    assert.deepEqual(listed[0]!.repoTags, ['registry.k8s.io/tools:1']);
    assert.match(listed[0]!.id, /^sha256:[0-9a-f]{64}$/);
    assert.equal(listed[0]!.uid, 65535);
    assert.equal(await images.imageStatus('docker.io/library/empty:1'), undefined);
    assert.ok((await images.imageFsInfo())[0]!.usedBytes > 0);
    await images.removeImage('registry.k8s.io/tools:1');
    await images.removeImage('registry.k8s.io/tools:1');
    assert.equal(await images.imageStatus('registry.k8s.io/tools:1'), undefined);
    assert.deepEqual(await new ProcessImageService(join(root, 'missing')).listImages(), []);
  });

  it('keeps the reading of an unchanged image, and reads it again once bin/ or image.json changes', async () => {
    const imagesDir = join(root, 'kept');
    const dir = join(imagesDir, 'localhost', 'app', '1');
    const build = (files: string[], config: object): void => {
      const building = `${dir}.building`;
      mkdirSync(join(building, 'bin'), { recursive: true });
      for (const f of files) writeFileSync(join(building, 'bin', f), `#!/bin/sh\n# ${f}\n`, { mode: 0o755 });
      writeFileSync(join(building, 'image.json'), JSON.stringify(config));
      rmSync(dir, { recursive: true, force: true });
      renameSync(building, dir);
    };
    build(['a'], { cmd: ['a'] });
    const images = new ProcessImageService(imagesDir);
    // A reading taken within the clock tick of the last change is not kept: wait until one is.
    const keptReading = async () => {
      await waitFor(async () => (await images.resolve('localhost/app:1')) === (await images.resolve('localhost/app:1')), { timeoutMs: 5000 });
      return (await images.resolve('localhost/app:1'))!;
    };
    const kept = await keptReading();
    assert.deepEqual(kept.config, { cmd: ['a'] });

    writeFileSync(join(dir, 'bin', 'b'), '#!/bin/sh\n'); // an entry added: bin/ changes
    const added = (await images.resolve('localhost/app:1'))!;
    assert.notEqual(added.id, kept.id);
    assert.ok(added.size > kept.size);

    assert.equal((await keptReading()).id, added.id);
    writeFileSync(join(dir, 'image.json'), JSON.stringify({ cmd: ['b'] })); // the config rewritten in place
    assert.deepEqual((await images.resolve('localhost/app:1'))!.config, { cmd: ['b'] });

    await keptReading();
    build(['c'], { entrypoint: ['c'] }); // rebuilt beside and renamed into place
    const rebuilt = (await images.resolve('localhost/app:1'))!;
    assert.deepEqual(rebuilt.config, { entrypoint: ['c'] });
    assert.equal((await images.imageStatus('localhost/app:1'))!.id, rebuilt.id);

    rmSync(dir, { recursive: true, force: true });
    assert.equal(await images.resolve('localhost/app:1'), undefined);
  });
});
