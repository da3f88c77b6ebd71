/**
 * `k8ts image import` (the real command) into a real, private containerd with
 * no images: afterwards the CRI lists busybox under both tags and the pause
 * image under containerd's sandbox_image name, and a pod runs on them. This
 * containerd has no pod network (and no network namespace): host-network only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newCriRuntime } from '../../../src/kubelet/runtime/cri/cri-runtime.js';
import { eventually } from '../../../src/kubelet/runtime/testing/conformance.js';
import { containerdUnavailableReason, startPrivateContainerd, type PrivateContainerd } from '../testing/containerd.js';
import { runK8ts } from '../testing/k8ts-process.js';

const skip = await containerdUnavailableReason();

describe('k8ts image import into containerd', skip !== undefined ? { skip } : {}, () => {
  let containerd: PrivateContainerd;
  let dataDir: string;
  before(async () => {
    containerd = await startPrivateContainerd({ images: [], podNetwork: false });
    dataDir = mkdtempSync(join(tmpdir(), 'k8ts-image-import-'));
  });
  after(async () => {
    try {
      await containerd?.stop();
    } finally {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('imports busybox and pause under their usual names, and a host-network pod runs on them', async () => {
    const cri = newCriRuntime({ endpoint: containerd.endpoint, timeoutMs: 30_000 });
    try {
      assert.equal(await cri.images.imageStatus('busybox:1.35'), undefined);
      const { code, output } = await runK8ts(['image', 'import', 'busybox', 'pause', '--data-dir', dataDir, '--containerd-address', containerd.address], 120_000);
      assert.equal(code, 0, output);
      assert.match(output, /^docker\.io\/library\/busybox:1\.35$/m);
      const busybox = await cri.images.imageStatus('busybox:1.35');
      assert.deepEqual([...(busybox?.repoTags ?? [])].sort(), ['docker.io/library/busybox:1.35', 'docker.io/library/busybox:latest']);
      assert.match(busybox?.id ?? '', /^sha256:[0-9a-f]{64}$/);
      const pause = await cri.images.imageStatus('registry.k8s.io/pause:3.6');
      assert.equal(pause?.uid, 65535);
      const network = (await cri.runtime.status()).conditions.find((c) => c.type === 'NetworkReady');
      await cri.runtime.updateRuntimeConfig({ podCIDR: '10.244.9.0/24' });
      assert.equal((await cri.runtime.status()).conditions.find((c) => c.type === 'NetworkReady')?.status, false, 'no CNI template: no pod network');
      assert.equal(network?.status, false);

      const logDirectory = join(dataDir, 'pods', 'default_hello_u1');
      const sandbox = {
        metadata: { name: 'hello', uid: 'u1', namespace: 'default', attempt: 0 },
        hostname: 'hello',
        logDirectory,
        portMappings: [],
        labels: {},
        annotations: {},
        linux: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } },
      } as const;
      const sandboxId = await cri.runtime.runPodSandbox(sandbox);
      const id = await cri.runtime.createContainer(
        sandboxId,
        {
          metadata: { name: 'hello', attempt: 0 },
          image: 'busybox',
          command: [],
          args: ['sh', '-c', 'echo "hello from $(id -u) in $(pwd)"; ls /bin/httpd'],
          envs: [],
          mounts: [],
          labels: {},
          annotations: {},
          logPath: 'hello/0.log',
          stdin: false,
          stdinOnce: false,
          tty: false,
        },
        sandbox,
      );
      await cri.runtime.startContainer(id);
      const done = await eventually('the container to exit', async () => {
        const s = await cri.runtime.containerStatus(id);
        return s.state === 'CONTAINER_EXITED' ? s : undefined;
      });
      assert.equal(done.exitCode, 0, readFileSync(done.logPath, 'utf8'));
      assert.equal(done.imageRef, busybox?.id);
      assert.match(readFileSync(done.logPath, 'utf8'), / stdout F hello from 0 in \/\n.* stdout F \/bin\/httpd\n$/);
    } finally {
      await cri.close();
    }
  });
});
