import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { VolumeMount } from 'kubernetes-types/core/v1.js';
import { writeAtomically } from './atomic-writer.js';
import { containerMounts } from './container-mounts.js';
import { VolumeError } from './interface.js';

describe('container mounts', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'k8ts-container-mounts-')));
  after(() => rmSync(root, { recursive: true, force: true }));
  const volumes = join(root, 'pods', 'u1', 'volumes');
  const scratch = join(volumes, 'kubernetes.io~empty-dir', 'scratch');
  const config = join(volumes, 'kubernetes.io~configmap', 'config');
  const host = join(root, 'host');
  const outside = join(root, 'outside');
  mkdirSync(scratch, { recursive: true, mode: 0o777 });
  chmodSync(scratch, 0o777);
  mkdirSync(config, { recursive: true });
  mkdirSync(host);
  mkdirSync(outside);
  symlinkSync(outside, join(scratch, 'escape'));
  const paths = new Map([['scratch', scratch], ['config', config], ['host', host]]);
  const mountsOf = (volumeMounts: VolumeMount[], env?: { key: string; value: string }[]) => containerMounts({ name: 'main', image: 'x', volumeMounts }, paths, env);

  it('mounts volumes at their paths, read-only when asked or when the kubelet owns the contents', () => {
    assert.deepEqual(
      mountsOf([
        { name: 'scratch', mountPath: '/data' },
        { name: 'scratch', mountPath: 'relative/dir', readOnly: true },
        { name: 'config', mountPath: '/etc/app' },
        { name: 'host', mountPath: '/host' },
      ]),
      [
        { containerPath: '/data', hostPath: scratch, readonly: false },
        { containerPath: '/relative/dir', hostPath: scratch, readonly: true },
        { containerPath: '/etc/app', hostPath: config, readonly: true },
        { containerPath: '/host', hostPath: host, readonly: false },
      ],
    );
    assert.deepEqual(containerMounts({ name: 'main', image: 'x' }, paths), []);
  });

  it('creates a missing subPath with the volume mode, and resolves a configMap key to its file', async () => {
    const [mount] = mountsOf([{ name: 'scratch', mountPath: '/cache', subPath: 'a/b' }]);
    assert.equal(mount?.hostPath, join(scratch, 'a', 'b'));
    assert.equal(statSync(join(scratch, 'a', 'b')).mode & 0o777, 0o777);
    await writeAtomically(config, new Map([['app.conf', { data: Buffer.from('x'), mode: 0o644 }]]));
    const [file] = mountsOf([{ name: 'config', mountPath: '/etc/app.conf', subPath: 'app.conf' }]);
    assert.match(file?.hostPath ?? '', /kubernetes\.io~configmap\/config\/\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\w+\/app\.conf$/);
    assert.equal(file?.readonly, true);
  });

  it('expands subPathExpr against the container env', () => {
    const [mount] = mountsOf([{ name: 'scratch', mountPath: '/logs', subPathExpr: 'logs/$(POD_NAME)' }], [{ key: 'POD_NAME', value: 'web-1' }]);
    assert.equal(mount?.hostPath, join(scratch, 'logs', 'web-1'));
    assert.throws(() => mountsOf([{ name: 'scratch', mountPath: '/logs', subPathExpr: '$(B)/$(A)' }], [{ key: 'A', value: '' }]), /^VolumeError: missing value for A, B$/);
  });

  it('fails with upstream messages', () => {
    const fails = (volumeMounts: VolumeMount[], message: string, volume: string): void => {
      assert.throws(
        () => mountsOf(volumeMounts),
        (e: unknown) => e instanceof VolumeError && e.message === message && e.volume === volume,
      );
    };
    fails([{ name: 'nope', mountPath: '/x' }], 'cannot find volume "nope" to mount into container "main"', 'nope');
    fails([{ name: 'scratch', mountPath: '/x', subPath: '/etc' }], 'error SubPath `/etc` must not be an absolute path', 'scratch');
    fails([{ name: 'scratch', mountPath: '/x', subPath: 'a/../../b' }], "unable to provision SubPath `a/../../b`: must not contain '..'", 'scratch');
    fails([{ name: 'scratch', mountPath: '/x', subPath: 'escape' }], 'failed to prepare subPath for volumeMount "scratch" of container "main"', 'scratch');
    fails([{ name: 'scratch', mountPath: '/x', subPath: 'escape/new' }], 'failed to create subPath directory for volumeMount "scratch" of container "main"', 'scratch');
    assert.equal(existsSync(join(outside, 'new')), false, 'nothing was made outside the volume');
    writeFileSync(join(scratch, 'file'), 'x');
    fails([{ name: 'scratch', mountPath: '/x', subPath: 'file/below' }], 'failed to create subPath directory for volumeMount "scratch" of container "main"', 'scratch');
  });
});
