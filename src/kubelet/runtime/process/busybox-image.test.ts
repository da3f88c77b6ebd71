import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildBusyboxImage, findHostBusybox } from './busybox-image.js';
import { ProcessImageService } from './images.js';

describe('busybox image', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-busybox-image-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  // A stand-in busybox: prints its applet list, so the test needs no package.
  const fake = join(root, 'fake-busybox');
  writeFileSync(fake, '#!/bin/sh\n[ "$1" = --list ] && printf "busybox\\nsh\\nhttpd\\nls\\n"\n', { mode: 0o755 });

  it('makes one directory with an applet link each, tagged 1.35 and latest', async () => {
    const imagesDir = join(root, 'images');
    const built = await buildBusyboxImage({ imagesDir, busyboxPath: fake });
    assert.deepEqual(built.names, ['docker.io/library/busybox:1.35', 'docker.io/library/busybox:latest']);
    assert.equal(built.applets, 3);
    assert.equal(readlinkSync(join(built.dir, 'bin', 'httpd')), 'busybox');
    assert.ok(lstatSync(join(imagesDir, 'docker.io', 'library', 'busybox', 'latest')).isSymbolicLink());
    const images = new ProcessImageService(imagesDir);
    const listed = await images.listImages();
    assert.equal(listed.length, 1);
    assert.deepEqual([...listed[0]!.repoTags].sort(), built.names);
    assert.equal((await images.imageStatus('busybox'))?.id, listed[0]!.id);
    const resolved = await images.resolve('busybox:1.35');
    assert.deepEqual(resolved?.config, { cmd: ['sh'] });
    // Building again replaces it.
    await buildBusyboxImage({ imagesDir, busyboxPath: fake, names: ['busybox:1.35'] });
    assert.equal((await images.imageStatus('busybox:1.35'))?.id, listed[0]!.id);
  });

  it('fails clearly without a busybox or with a bad name', async () => {
    assert.equal(await findHostBusybox([join(root, 'none')]), undefined);
    await assert.rejects(buildBusyboxImage({ imagesDir: join(root, 'x'), busyboxPath: fake, names: ['bad@sha256:00'] }), /invalid image name/);
    await assert.rejects(buildBusyboxImage({ imagesDir: join(root, 'x'), busyboxPath: fake, names: [] }), /no image names/);
  });
});
