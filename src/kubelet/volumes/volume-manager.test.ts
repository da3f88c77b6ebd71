import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Volume } from 'kubernetes-types/core/v1.js';
import type { Node, Pod } from '../types.js';
import { VolumeError } from './interface.js';
import { FakeObjectSource } from './testing/fake-object-source.js';
import { newVolumeManager } from './volume-manager.js';

const HOUR = 3600_000;

function podWith(uid: string, volumes: Volume[], extra: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return {
    metadata: { name: `pod-${uid}`, namespace: 'ns', uid, labels: { app: 'web' } },
    spec: { serviceAccountName: 'default', containers: [{ name: 'main', image: 'x', resources: { requests: { cpu: '100m' } } }], volumes, ...extra },
  };
}

async function rejectsWithVolume(promise: Promise<unknown>, volume: string, message: string): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof VolumeError, `a VolumeError, not ${String(e)}`);
    assert.equal(e.volume, volume);
    assert.equal(e.message, message);
    return true;
  });
}

describe('volume manager', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-volume-manager-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const rootDir = (): string => mkdtempSync(join(root, `r${n++}-`));

  it('lays out every plugin under <root>/pods/<uid>/volumes and hostPath as the host path', async () => {
    const dir = rootDir();
    const host = join(dir, 'host-data');
    const source = new FakeObjectSource();
    source.addConfigMap('ns', 'cfg', { 'app.conf': 'debug=1' });
    source.addSecret('ns', 'creds', { password: 'pw' });
    const node: Node = { metadata: { name: 'n1' }, status: { allocatable: { cpu: '3', memory: '2Gi' } } };
    const manager = newVolumeManager({ rootDir: dir, source, node: () => node });
    const paths = await manager.setUpPod(
      podWith('u1', [
        { name: 'scratch', emptyDir: {} },
        { name: 'ram', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
        { name: 'bare' },
        { name: 'host', hostPath: { path: host, type: 'DirectoryOrCreate' } },
        { name: 'config', configMap: { name: 'cfg' } },
        { name: 'secret', secret: { secretName: 'creds', defaultMode: 0o400 } },
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'cpu', resourceFieldRef: { containerName: 'main', resource: 'limits.cpu' } }] } },
      ]),
    );
    const volumes = join(dir, 'pods', 'u1', 'volumes');
    assert.deepEqual(Object.fromEntries(paths), {
      scratch: join(volumes, 'kubernetes.io~empty-dir', 'scratch'),
      ram: join(volumes, 'kubernetes.io~empty-dir', 'ram'),
      bare: join(volumes, 'kubernetes.io~empty-dir', 'bare'),
      host,
      config: join(volumes, 'kubernetes.io~configmap', 'config'),
      secret: join(volumes, 'kubernetes.io~secret', 'secret'),
      info: join(volumes, 'kubernetes.io~downward-api', 'info'),
    });
    assert.equal(statSync(paths.get('scratch') ?? '').mode & 0o777, 0o777);
    assert.ok(statSync(host).isDirectory());
    assert.equal(readFileSync(join(paths.get('config') ?? '', 'app.conf'), 'utf8'), 'debug=1');
    assert.equal(readFileSync(join(paths.get('secret') ?? '', 'password'), 'utf8'), 'pw');
    assert.equal(statSync(join(paths.get('secret') ?? '', 'password')).mode & 0o777, 0o400);
    assert.equal(readFileSync(join(paths.get('info') ?? '', 'labels'), 'utf8'), 'app="web"');
    assert.equal(readFileSync(join(paths.get('info') ?? '', 'cpu'), 'utf8'), '3');
    assert.deepEqual(await manager.podsOnDisk(), ['u1']);
  });

  it('follows its sources on every setUpPod, keeping emptyDir contents', async () => {
    const dir = rootDir();
    const source = new FakeObjectSource();
    source.addConfigMap('ns', 'cfg', { a: '1', b: '2' });
    const manager = newVolumeManager({ rootDir: dir, source });
    const pod = podWith('u1', [{ name: 'config', configMap: { name: 'cfg' } }, { name: 'scratch', emptyDir: {} }, { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }]);
    const paths = await manager.setUpPod(pod);
    const config = paths.get('config') ?? '';
    writeFileSync(join(paths.get('scratch') ?? '', 'state'), 'kept');
    const firstVersion = readlinkSync(join(config, '..data'));
    await manager.setUpPod(pod);
    assert.equal(readlinkSync(join(config, '..data')), firstVersion, 'nothing changed, nothing written');
    source.addConfigMap('ns', 'cfg', { a: '10', c: '3' });
    await manager.setUpPod({ ...pod, metadata: { ...pod.metadata, labels: { app: 'web', v: '2' } } });
    assert.notEqual(readlinkSync(join(config, '..data')), firstVersion);
    assert.equal(readFileSync(join(config, 'a'), 'utf8'), '10');
    assert.equal(readFileSync(join(config, 'c'), 'utf8'), '3');
    assert.equal(existsSync(join(config, 'b')), false);
    assert.equal(readFileSync(join(paths.get('info') ?? '', 'labels'), 'utf8'), 'app="web"\nv="2"');
    assert.equal(readFileSync(join(paths.get('scratch') ?? '', 'state'), 'utf8'), 'kept');
  });

  /** A manager that refreshes every 60 s on a clock the test moves (`advance`), with ConfigMap ns/cfg holding a=1. */
  const refreshing = () => {
    let now = 1_000_000;
    const source = new FakeObjectSource({ clock: () => now });
    source.addConfigMap('ns', 'cfg', { a: '1' });
    const manager = newVolumeManager({ rootDir: rootDir(), source, clock: () => now, refreshIntervalMs: 60_000 });
    return { source, manager, advance: (ms: number) => void (now += ms) };
  };

  it('with a refresh interval, leaves an unchanged pod set up less than that long ago alone', async () => {
    const { source, manager, advance } = refreshing();
    const pod = podWith('u1', [{ name: 'config', configMap: { name: 'cfg' } }, { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }]);
    const paths = await manager.setUpPod(pod);
    const config = paths.get('config') ?? '';
    source.addConfigMap('ns', 'cfg', { a: '2' });
    advance(59_000);
    assert.deepEqual(await manager.setUpPod(pod), paths, 'the same paths');
    assert.equal(readFileSync(join(config, 'a'), 'utf8'), '1', 'not refreshed within the interval');

    // A change of the pod (here its labels, which the downward API volume shows) refreshes at once, sources included.
    const relabelled: Pod = { ...pod, metadata: { ...pod.metadata, labels: { app: 'web', v: '2' } } };
    await manager.setUpPod(relabelled);
    assert.equal(readFileSync(join(paths.get('info') ?? '', 'labels'), 'utf8'), 'app="web"\nv="2"');
    assert.equal(readFileSync(join(config, 'a'), 'utf8'), '2');

    source.addConfigMap('ns', 'cfg', { a: '3' });
    advance(60_000);
    await manager.setUpPod(relabelled);
    assert.equal(readFileSync(join(config, 'a'), 'utf8'), '3', 'refreshed once the interval has passed');
  });

  it('with a refresh interval, takes a new object of the same pod (a status update from the API) for unchanged, and one with another spec for changed', async () => {
    const { source, manager, advance } = refreshing();
    const pod = podWith('u1', [{ name: 'config', configMap: { name: 'cfg' } }]);
    const config = (await manager.setUpPod(pod)).get('config') ?? '';
    source.addConfigMap('ns', 'cfg', { a: '2' });
    advance(1_000);
    const statusUpdate: Pod = structuredClone({ ...pod, status: { phase: 'Running' } });
    await manager.setUpPod(statusUpdate);
    assert.equal(readFileSync(join(config, 'a'), 'utf8'), '1', 'not refreshed: the same labels, annotations and spec');
    const respecced: Pod = structuredClone(statusUpdate);
    respecced.spec = { ...pod.spec!, activeDeadlineSeconds: 30 };
    await manager.setUpPod(respecced);
    assert.equal(readFileSync(join(config, 'a'), 'utf8'), '2', 'refreshed: the spec changed');
  });

  it('with a refresh interval, tries again on the next call a refresh that failed, and sets up again a pod torn down', async () => {
    const { source, manager, advance } = refreshing();
    const pod = podWith('u1', [{ name: 'config', configMap: { name: 'cfg' } }]);
    const paths = await manager.setUpPod(pod);
    const config = paths.get('config') ?? '';

    advance(61_000);
    source.fail = new Error('connection refused');
    await manager.setUpPod(pod); // keeps its contents
    source.fail = undefined;
    source.addConfigMap('ns', 'cfg', { a: '2' });
    advance(1_000);
    await manager.setUpPod(pod);
    assert.equal(readFileSync(join(config, 'a'), 'utf8'), '2', 'the failed refresh was not taken for a set-up');

    await manager.tearDownPod('u1');
    assert.equal(existsSync(config), false);
    await manager.setUpPod(pod);
    assert.equal(readFileSync(join(config, 'a'), 'utf8'), '2', 'set up again at once after a tear-down');
  });

  it('projects the kube-api-access volume (token, ca.crt, namespace) and renews the token at 80% of its life', async () => {
    const dir = rootDir();
    let now = 1_000_000_000;
    const source = new FakeObjectSource({ clock: () => now });
    source.addConfigMap('ns', 'kube-root-ca.crt', { 'ca.crt': '-----BEGIN CERTIFICATE-----' });
    const manager = newVolumeManager({ rootDir: dir, source, clock: () => now });
    const pod = podWith('u1', [
      {
        name: 'kube-api-access-x7k2p',
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      },
      { name: 'vault', projected: { sources: [{ serviceAccountToken: { path: 'vault/token', audience: 'vault' } }, { secret: { name: 'absent', optional: true } }] } },
    ]);
    const paths = await manager.setUpPod(pod);
    const access = paths.get('kube-api-access-x7k2p') ?? '';
    assert.equal(access, join(dir, 'pods', 'u1', 'volumes', 'kubernetes.io~projected', 'kube-api-access-x7k2p'));
    assert.equal(readFileSync(join(access, 'token'), 'utf8'), 'token-1');
    assert.equal(readFileSync(join(access, 'ca.crt'), 'utf8'), '-----BEGIN CERTIFICATE-----');
    assert.equal(readFileSync(join(access, 'namespace'), 'utf8'), 'ns');
    assert.equal(statSync(join(access, 'token')).mode & 0o777, 0o644);
    assert.equal(readFileSync(join(paths.get('vault') ?? '', 'vault', 'token'), 'utf8'), 'token-2');
    assert.deepEqual(source.tokenRequests, [
      { pod: 'pod-u1', audience: undefined, expirationSeconds: 3607 },
      { pod: 'pod-u1', audience: 'vault', expirationSeconds: 3600 },
    ]);

    now += 0.5 * HOUR;
    await manager.setUpPod(pod);
    assert.equal(source.tokenRequests.length, 2, 'still fresh');
    now += 0.35 * HOUR;
    await manager.setUpPod(pod);
    assert.equal(readFileSync(join(access, 'token'), 'utf8'), 'token-3');
    assert.equal(readFileSync(join(paths.get('vault') ?? '', 'vault', 'token'), 'utf8'), 'token-4');

    await manager.tearDownPod('u1');
    await manager.setUpPod(pod);
    assert.equal(readFileSync(join(access, 'token'), 'utf8'), 'token-5', 'a torn-down pod forgets its tokens');
  });

  it('writes a projected token 0600 when the pod has an fsGroup', async () => {
    const source = new FakeObjectSource();
    const manager = newVolumeManager({ rootDir: rootDir(), source });
    const paths = await manager.setUpPod(podWith('u1', [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }], { securityContext: { fsGroup: 2000 } }));
    assert.equal(statSync(join(paths.get('t') ?? '', 'token')).mode & 0o777, 0o600);
  });

  it('fails with a VolumeError naming the volume and upstream messages', async () => {
    const dir = rootDir();
    const source = new FakeObjectSource();
    source.addConfigMap('ns', 'cfg', { a: '1' });
    source.addSecret('ns', 'creds', { a: '1' });
    const manager = newVolumeManager({ rootDir: dir, source });
    const one = (volume: Volume): Promise<unknown> => manager.setUpPod(podWith('u1', [{ name: 'ok', emptyDir: {} }, volume]));
    await rejectsWithVolume(one({ name: 'c', configMap: { name: 'x' } }), 'c', 'configmap "x" not found');
    await rejectsWithVolume(one({ name: 'c', configMap: { name: 'cfg', items: [{ key: 'k', path: 'k' }] } }), 'c', 'configmap references non-existent config key: k');
    await rejectsWithVolume(one({ name: 's', secret: { secretName: 'x' } }), 's', 'secret "x" not found');
    await rejectsWithVolume(one({ name: 's', secret: { secretName: 'creds', items: [{ key: 'k', path: 'k' }] } }), 's', 'references non-existent secret key: k');
    await rejectsWithVolume(one({ name: 'h', hostPath: { path: join(dir, 'none'), type: 'Directory' } }), 'h', `hostPath ${join(dir, 'none')} doesn't exist`);
    await rejectsWithVolume(one({ name: 'd', downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'status.podIP' } }] } }), 'd', 'unsupported fieldPath: status.podIP');
    await rejectsWithVolume(
      one({ name: 'p', projected: { sources: [{ configMap: { name: 'x' } }, { secret: { name: 'y' } }, { configMap: { name: 'cfg', items: [{ key: 'a', path: 'a' }] } }] } }),
      'p',
      '[configmap "x" not found, secret "y" not found]',
    );
    await rejectsWithVolume(one({ name: 'p', projected: { sources: [{ configMap: { name: 'cfg', items: [{ key: 'a', path: '../x' }] } }] } }), 'p', "invalid path: must not contain '..': ../x");
    await rejectsWithVolume(one({ name: 'claim', persistentVolumeClaim: { claimName: 'data' } }), 'claim', 'no volume plugin matched: persistentVolumeClaim volumes are not supported by this kubelet');
    source.fail = new Error('configmaps "cfg" is forbidden');
    await rejectsWithVolume(one({ name: 'c', configMap: { name: 'cfg' } }), 'c', 'configmaps "cfg" is forbidden');
    source.fail = new Error('token denied');
    await rejectsWithVolume(one({ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }), 't', 'token denied');
    await rejectsWithVolume(manager.setUpPod({ metadata: { name: 'no-uid' }, spec: { containers: [] } }), '', 'the pod has no metadata.uid');
  });

  it('sets up optional volumes whose object or keys are missing as empty', async () => {
    const source = new FakeObjectSource();
    const manager = newVolumeManager({ rootDir: rootDir(), source });
    const paths = await manager.setUpPod(
      podWith('u1', [
        { name: 'c', configMap: { name: 'x', optional: true, items: [{ key: 'k', path: 'k' }] } },
        { name: 's', secret: { secretName: 'x', optional: true } },
      ]),
    );
    assert.ok(lstatSync(join(paths.get('c') ?? '', '..data')).isSymbolicLink());
    assert.equal(existsSync(join(paths.get('c') ?? '', 'k')), false);
    assert.ok(lstatSync(join(paths.get('s') ?? '', '..data')).isSymbolicLink());
  });

  it('keeps a set-up volume as it is when its source cannot be read (API server away)', async () => {
    const source = new FakeObjectSource();
    source.addConfigMap('ns', 'cfg', { a: '1' });
    const manager = newVolumeManager({ rootDir: rootDir(), source });
    const pod = podWith('u1', [{ name: 'c', configMap: { name: 'cfg' } }]);
    const paths = await manager.setUpPod(pod);
    source.fail = new Error('connect ECONNREFUSED');
    assert.deepEqual(await manager.setUpPod(pod), paths);
    assert.equal(readFileSync(join(paths.get('c') ?? '', 'a'), 'utf8'), '1');
    source.configMaps.clear();
    source.fail = undefined;
    assert.deepEqual(await manager.setUpPod(pod), paths, 'a ConfigMap deleted under a running pod leaves its last contents');
  });

  it('tears a pod down without touching what its hostPaths and symlinks point at', async () => {
    const dir = rootDir();
    const host = join(dir, 'host');
    mkdirSync(host);
    writeFileSync(join(host, 'precious'), 'keep');
    const source = new FakeObjectSource();
    const manager = newVolumeManager({ rootDir: dir, source });
    const paths = await manager.setUpPod(podWith('u1', [{ name: 'h', hostPath: { path: host } }, { name: 'e', emptyDir: {} }]));
    await manager.setUpPod(podWith('u2', [{ name: 'e', emptyDir: {} }]));
    symlinkSync(host, join(paths.get('e') ?? '', 'link-to-host'));
    assert.deepEqual((await manager.podsOnDisk()).sort(), ['u1', 'u2']);
    await manager.tearDownPod('u1');
    await manager.tearDownPod('u1');
    assert.equal(readFileSync(join(host, 'precious'), 'utf8'), 'keep');
    assert.deepEqual(await manager.podsOnDisk(), ['u2']);
    await manager.tearDownPod('..');
    await manager.tearDownPod('');
    assert.deepEqual(await manager.podsOnDisk(), ['u2']);
    assert.deepEqual(await newVolumeManager({ rootDir: join(dir, 'fresh'), source }).podsOnDisk(), []);
  });

  it('runs the calls for one pod one at a time', async () => {
    const source = new FakeObjectSource();
    source.addConfigMap('ns', 'cfg', { a: '1' });
    let inFlight = 0;
    let most = 0;
    const read = source.configMap.bind(source);
    source.configMap = async (ns, name) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return read(ns, name);
    };
    const manager = newVolumeManager({ rootDir: rootDir(), source });
    const pod = podWith('u1', [{ name: 'c', configMap: { name: 'cfg' } }]);
    await Promise.all([manager.setUpPod(pod), manager.setUpPod(pod), manager.tearDownPod('u1'), manager.setUpPod(pod)]);
    assert.equal(most, 1);
    assert.deepEqual(await manager.podsOnDisk(), ['u1']);
  });
});
