/**
 * The kubelet's real parts: the pod workers, the volume manager and the API
 * object source it reads from, env resolution, probes and the kubelet's HTTPS
 * server, each from its own module. `k8ts kubelet` runs with these; unit tests
 * of kubelet.ts give fakes instead.
 */
import { newEnvResolver } from './env/env-resolver.js';
import type { KubeletParts } from './kubelet.js';
import { newPodWorkers } from './pod-workers/pod-workers.js';
import { newProbeManager } from './prober/probe-manager.js';
import { startKubeletServer } from './server/kubelet-server.js';
import { containerMounts } from './volumes/container-mounts.js';
import { newApiObjectSource } from './volumes/object-source.js';
import { newVolumeManager } from './volumes/volume-manager.js';

export const DEFAULT_KUBELET_PARTS: KubeletParts = {
  newPodWorkers,
  newApiObjectSource: ({ client, logger }) => newApiObjectSource({ client, logger }),
  newVolumeManager: ({ rootDir, nodeName, objects, node, logger, refreshIntervalMs }) => newVolumeManager({ rootDir, nodeName, source: objects, node, logger, refreshIntervalMs }),
  containerMounts,
  newEnvResolver,
  newProbeManager,
  startKubeletServer,
};
