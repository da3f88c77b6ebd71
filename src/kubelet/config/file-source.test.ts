import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, mkdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newLogger } from '../../machinery/logger.js';
import type { Pod } from '../types.js';
import { newFileSource } from './file-source.js';
import { parseManifest, staticPodFromManifest, StaticPodError } from './static-pod.js';

const logger = newLogger('test', { level: 'silent' });
const manifest = (name: string, image = 'busybox'): string => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: main\n    image: ${image}\n`;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('static pod manifests', () => {
  it('become pods named <name>-<node>, in default, bound to the node, with upstream annotations and a uid hashed from the manifest', () => {
    const pod = staticPodFromManifest(parseManifest('/m/web.yaml', manifest('web')), { nodeName: 'node-a', path: '/m/web.yaml', seen: 'then' });
    assert.equal(pod.metadata.name, 'web-node-a');
    assert.equal(pod.metadata.namespace, 'default');
    assert.equal(pod.spec?.nodeName, 'node-a');
    assert.match(pod.metadata.uid ?? '', /^[0-9a-f]{32}$/);
    assert.deepEqual(pod.metadata.annotations, { 'kubernetes.io/config.hash': pod.metadata.uid, 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.seen': 'then' });
    assert.equal(pod.spec?.restartPolicy, 'Always', 'API defaults applied');
    const again = staticPodFromManifest(parseManifest('/m/web.yaml', manifest('web')), { nodeName: 'node-a', path: '/m/web.yaml', seen: 'later' });
    assert.equal(again.metadata.uid, pod.metadata.uid, 'same manifest, same uid');
    const changed = staticPodFromManifest(parseManifest('/m/web.yaml', manifest('web', 'nginx')), { nodeName: 'node-a', path: '/m/web.yaml', seen: 'x' });
    assert.notEqual(changed.metadata.uid, pod.metadata.uid);
    const json = staticPodFromManifest(parseManifest('/m/web.json', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'j', namespace: 'kube-system', uid: 'given' }, spec: { containers: [{ name: 'c', image: 'i' }] } })), { nodeName: 'n', path: '/m/web.json', seen: '' });
    assert.equal(json.metadata.uid, 'given');
    assert.equal(json.metadata.namespace, 'kube-system');
  });

  it('refuses what is not one valid v1 Pod, naming the file', () => {
    assert.throws(() => parseManifest('/m/a', 'kind: [oops'), (e: unknown) => e instanceof StaticPodError && /\/m\/a: cannot parse the manifest/.test(e.message));
    assert.throws(() => parseManifest('/m/b', 'apiVersion: v1\nkind: Service\nmetadata: {name: x}\n'), /must be a v1 Pod, not v1 Service/);
    assert.throws(() => parseManifest('/m/c', `${manifest('a')}---\n${manifest('b')}`), /exactly one Pod, found 2/);
    assert.throws(
      () => staticPodFromManifest(parseManifest('/m/d', 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: []}\n'), { nodeName: 'n', path: '/m/d', seen: '' }),
      /\/m\/d: invalid pod: spec.containers: Required value/,
    );
  });
});

describe('file pod source', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-file-source-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the directory at start, follows changes through fs.watch, skips hidden files and keeps good pods beside bad files', async () => {
    const manifests = join(dir, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), manifest('web'));
    await writeFile(join(manifests, '.hidden.yaml'), manifest('hidden'));
    await writeFile(join(manifests, 'broken.yaml'), 'kind: [');
    const sets: (readonly Pod[])[] = [];
    // A long check period: changes must come through the watch.
    const source = newFileSource({ path: manifests, nodeName: 'node-a', checkFrequencyMs: 60_000, logger, settleMs: 10 });
    await source.start((pods) => sets.push(pods));
    try {
      assert.deepEqual(sets.at(-1)!.map((p) => p.metadata.name), ['web-node-a']);
      const seen = sets.at(-1)![0]!.metadata.annotations?.['kubernetes.io/config.seen'];
      await writeFile(join(manifests, 'db.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db' }, spec: { containers: [{ name: 'c', image: 'i' }] } }));
      await until(() => sets.at(-1)!.length === 2, 'the new manifest');
      assert.deepEqual(sets.at(-1)!.map((p) => p.metadata.name), ['db-node-a', 'web-node-a']);
      assert.equal(sets.at(-1)![1]!.metadata.annotations?.['kubernetes.io/config.seen'], seen, 'an unchanged pod keeps its config.seen');
      await unlink(join(manifests, 'web.yaml'));
      await until(() => sets.at(-1)!.length === 1, 'the removal');
      assert.equal(sets.at(-1)![0]!.metadata.name, 'db-node-a');
    } finally {
      source.stop();
    }
  });

  it('treats a missing path as no pods and picks the directory up when it appears (periodic check)', async () => {
    const later = join(dir, 'later');
    const sets: (readonly Pod[])[] = [];
    const source = newFileSource({ path: later, nodeName: 'node-a', checkFrequencyMs: 20, logger, settleMs: 5 });
    await source.start((pods) => sets.push(pods));
    try {
      assert.deepEqual(sets, [[]]);
      await mkdir(later);
      await writeFile(join(later, 'p.yaml'), manifest('p'));
      await until(() => sets.at(-1)!.length === 1, 'the pod of the new directory');
    } finally {
      source.stop();
    }
  });

  it('reads a single manifest file, and keeps the first of two files naming the same pod', async () => {
    const file = join(dir, 'single.yaml');
    await writeFile(file, manifest('only'));
    const sets: (readonly Pod[])[] = [];
    const single = newFileSource({ path: file, nodeName: 'n', checkFrequencyMs: 60_000, logger });
    await single.start((pods) => sets.push(pods));
    single.stop();
    assert.deepEqual(sets.at(-1)!.map((p) => p.metadata.name), ['only-n']);

    const dup = join(dir, 'dup');
    await mkdir(dup);
    await writeFile(join(dup, 'a.yaml'), manifest('same'));
    await writeFile(join(dup, 'b.yaml'), manifest('same', 'other'));
    const dupSets: (readonly Pod[])[] = [];
    const source = newFileSource({ path: dup, nodeName: 'n', checkFrequencyMs: 60_000, logger });
    await source.start((pods) => dupSets.push(pods));
    source.stop();
    assert.equal(dupSets.at(-1)!.length, 1);
    assert.equal(dupSets.at(-1)![0]!.spec?.containers[0]!.image, 'busybox');
  });
});
