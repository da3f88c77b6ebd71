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
 *
 * Pod cgroups whose pod the kubelet no longer knows (deleted while it was
 * down, or a cleanup that found processes still inside) are removed by its
 * housekeeping (OrphanedPodCgroups, upstream's cleanupOrphanedPodCgroups).
 */
import { readdir, readFile, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { podQOSClass, type PodQOSClass } from '../../api/core/v1/qos.js';
import type { Pod } from '../types.js';

/** upstream's default --cgroup-root "/" plus its "kubepods" node allocatable cgroup. */
export const KUBEPODS_CGROUP = '/kubepods';
/** Where the cgroup hierarchies are mounted. */
export const DEFAULT_CGROUP_ROOT = '/sys/fs/cgroup';
/** The cgroups that hold pod cgroups: Guaranteed pods directly under kubepods, the others under their class. */
const QOS_CGROUPS = [KUBEPODS_CGROUP, `${KUBEPODS_CGROUP}/burstable`, `${KUBEPODS_CGROUP}/besteffort`];

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
export async function removePodCgroup(parent: string, cgroupRoot = DEFAULT_CGROUP_ROOT): Promise<void> {
  const relative = relativeCgroup(parent);
  if (relative === undefined) return;
  await Promise.all((await hierarchies(cgroupRoot)).map((root) => removeTree(join(root, relative))));
}

/**
 * The pod cgroups under kubepods in any hierarchy under `cgroupRoot`: each
 * cgroup (cgroupfs syntax) with its pod's UID (the name after "pod", as
 * upstream's GetAllPodsFromCgroups reads it).
 */
export async function listPodCgroups(cgroupRoot = DEFAULT_CGROUP_ROOT): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const root of await hierarchies(cgroupRoot)) {
    for (const qos of QOS_CGROUPS) {
      for (const name of await childCgroups(join(root, qos))) {
        if (name.startsWith('pod') && name.length > 'pod'.length) found.set(`${qos}/${name}`, name.slice('pod'.length));
      }
    }
  }
  return found;
}

/** Whether any process is in the pod's cgroup or one below it, in any hierarchy (cgroup.procs not empty). */
export async function podCgroupHasProcesses(parent: string, cgroupRoot = DEFAULT_CGROUP_ROOT): Promise<boolean> {
  const relative = relativeCgroup(parent);
  if (relative === undefined) return false;
  const busy = async (dir: string): Promise<boolean> => {
    const procs = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
    if (procs.trim() !== '') return true;
    for (const child of await childCgroups(dir)) if (await busy(join(dir, child))) return true;
    return false;
  };
  for (const root of await hierarchies(cgroupRoot)) if (await busy(join(root, relative))) return true;
  return false;
}

/**
 * The kubelet's housekeeping of pod cgroups (upstream's
 * cleanupOrphanedPodCgroups): a pod cgroup whose pod the kubelet does not
 * know and the runtime has no sandbox or container of is removed, unless a
 * process is still in it (upstream kills those; we leave them, and a later
 * sweep removes the cgroup once they are gone).
 *
 * A cgroup goes only when two sweeps in a row find it orphaned: in tests
 * several kubelets share this machine's /kubepods, and a pod cgroup another
 * kubelet's containerd has just made is empty for a moment, until runc moves
 * the sandbox's first process in.
 */
export class OrphanedPodCgroups {
  /** Cgroups the last sweep found orphaned. */
  private candidates = new Set<string>();

  constructor(private readonly cgroupRoot = DEFAULT_CGROUP_ROOT) {}

  /**
   * One sweep. `known` says whether the kubelet knows a pod (asked again just
   * before each removal); `runtimePods` lists the UIDs of pods with a sandbox
   * or container in the runtime (called only when some cgroup's pod is not
   * known). Resolves with the cgroups removed.
   */
  async sweep(known: (uid: string) => boolean, runtimePods: () => Promise<ReadonlySet<string>>): Promise<string[]> {
    const unknown = [...(await listPodCgroups(this.cgroupRoot))].filter(([, uid]) => !known(uid));
    const inRuntime = unknown.length > 0 ? await runtimePods() : new Set<string>();
    const orphans = unknown.filter(([, uid]) => !inRuntime.has(uid));
    const previous = this.candidates;
    this.candidates = new Set();
    const removed: string[] = [];
    for (const [parent, uid] of orphans) {
      if (!previous.has(parent) || (await podCgroupHasProcesses(parent, this.cgroupRoot))) {
        this.candidates.add(parent);
        continue;
      }
      if (known(uid)) continue;
      await removePodCgroup(parent, this.cgroupRoot);
      removed.push(parent);
    }
    return removed;
  }
}

/** The cgroup root itself (the unified hierarchy on v2) and every hierarchy mounted under it (v1). */
async function hierarchies(cgroupRoot: string): Promise<string[]> {
  return [cgroupRoot, ...(await childCgroups(cgroupRoot)).map((name) => join(cgroupRoot, name))];
}

/** The directories in a directory (a cgroup's children); none when it is missing. */
async function childCgroups(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

/** A cgroupfs path relative to a hierarchy; undefined for the root or a path that climbs out. */
function relativeCgroup(parent: string): string | undefined {
  const relative = parent.replace(/^\/+/, '');
  return relative === '' || relative.split('/').some((p) => p === '..' || p === '.') ? undefined : relative;
}

async function removeTree(dir: string): Promise<void> {
  // A cgroup directory's own files (cgroup.procs, …) cannot be removed; its child cgroups are directories.
  for (const child of await childCgroups(dir)) await removeTree(join(dir, child));
  await rmdir(dir).catch(() => undefined);
}
