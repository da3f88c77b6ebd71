/**
 * The pod's cgroup, as upstream's kubelet lays them out with
 * --cgroups-per-qos and the cgroupfs driver (pkg/kubelet/cm
 * pod_container_manager): `/kubepods/pod<uid>` for a Guaranteed pod,
 * `/kubepods/burstable/pod<uid>` and `/kubepods/besteffort/pod<uid>` for the
 * others. It goes to the runtime as the sandbox's cgroup_parent; containerd
 * (SystemdCgroup = false, our tests' config) puts the sandbox and each
 * container in `<parent>/<id>` of every hierarchy and creates the
 * directories on the way. containerd leaves the pod's directories behind when
 * the sandbox is removed, so the kubelet removes them once the pod is gone
 * (upstream's pod container manager destroys them too).
 *
 * The QoS class is the one the API server recorded in status.qosClass when
 * the pod was created, else computed (upstream's GetPodQOS).
 */
import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { podQOSClass, type PodQOSClass } from '../../api/core/v1/qos.js';
import type { Pod } from '../types.js';

/** upstream's default --cgroup-root "/" plus its "kubepods" node allocatable cgroup. */
export const KUBEPODS_CGROUP = '/kubepods';

const QOS_CLASSES: readonly string[] = ['Guaranteed', 'Burstable', 'BestEffort'];

/** status.qosClass when the API server set it, else computed from the spec. */
export function podQOS(pod: Pod): PodQOSClass {
  const recorded = pod.status?.qosClass;
  return recorded !== undefined && QOS_CLASSES.includes(recorded) ? (recorded as PodQOSClass) : podQOSClass(pod);
}

/** The pod's cgroup in cgroupfs syntax (the sandbox's cgroup_parent). */
export function podCgroupParent(pod: Pod): string {
  const pod_ = `pod${pod.metadata.uid ?? ''}`;
  switch (podQOS(pod)) {
    case 'Guaranteed':
      return `${KUBEPODS_CGROUP}/${pod_}`;
    case 'Burstable':
      return `${KUBEPODS_CGROUP}/burstable/${pod_}`;
    default:
      return `${KUBEPODS_CGROUP}/besteffort/${pod_}`;
  }
}

/**
 * Removes the pod's cgroup directory, deepest first, in the unified hierarchy
 * and every v1 hierarchy under `cgroupRoot` (default /sys/fs/cgroup). A
 * directory that is missing or still holds processes stays; nothing throws.
 */
export async function removePodCgroup(parent: string, cgroupRoot = '/sys/fs/cgroup'): Promise<void> {
  const relative = parent.replace(/^\/+/, '');
  if (relative === '' || relative.split('/').some((p) => p === '..' || p === '.')) return;
  let hierarchies: string[] = [];
  try {
    hierarchies = (await readdir(cgroupRoot, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => join(cgroupRoot, e.name));
  } catch {
    return;
  }
  await Promise.all([cgroupRoot, ...hierarchies].map((root) => removeTree(join(root, relative))));
}

async function removeTree(dir: string): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  // A cgroup directory's own files (cgroup.procs, …) cannot be removed; its child cgroups are directories.
  for (const e of entries) if (e.isDirectory()) await removeTree(join(dir, e.name));
  await rmdir(dir).catch(() => undefined);
}
