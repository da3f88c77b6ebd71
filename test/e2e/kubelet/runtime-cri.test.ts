/**
 * The container runtime conformance suite against the cri runtime on a real,
 * private containerd (test/e2e/testing/containerd.ts): host-network and
 * pod-network sandboxes (a CNI bridge inside the network namespace the helper
 * made; the pod CIDR reaches containerd through updateRuntimeConfig).
 * Streaming is skipped here: containerd's streaming server listens inside that
 * namespace; runtime-cri-host.test.ts covers exec, attach and port-forward.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCriRuntime } from '../../../src/kubelet/runtime/cri/cri-runtime.js';
import { runRuntimeConformance } from '../../../src/kubelet/runtime/testing/conformance.js';
import { containerdUnavailableReason, startPrivateContainerd } from '../testing/containerd.js';

const skip = await containerdUnavailableReason();

runRuntimeConformance(
  'cri (containerd)',
  async () => {
    const containerd = await startPrivateContainerd();
    const logRoot = mkdtempSync(join(tmpdir(), 'k8ts-cri-logs-'));
    const open = () => newCriRuntime({ endpoint: containerd.endpoint, timeoutMs: 30_000 });
    const runtime = open();
    await runtime.runtime.updateRuntimeConfig({ podCIDR: '10.244.77.0/24' });
    return {
      runtime,
      reopen: async () => open(),
      image: 'docker.io/library/busybox:1.35',
      absentImage: 'example.invalid/absent:1',
      logRoot,
      dispose: async () => {
        try {
          await containerd.stop();
        } finally {
          rmSync(logRoot, { recursive: true, force: true });
        }
      },
      features: { streaming: false },
    };
  },
  skip !== undefined ? { skip } : {},
);
