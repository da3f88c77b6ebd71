/**
 * emptyDir (kubernetes.io~empty-dir): a directory under the pod's directory
 * that lives as long as the pod. Medium "Memory" is also a plain directory
 * here: mounting a tmpfs needs root, which the process runtime does not have
 * (the contents are the same; they are just not in RAM and do not count
 * against the container's memory). sizeLimit is not enforced (upstream
 * enforces it by eviction, which this kubelet does not do). The directory is
 * world-writable (0777) as upstream's, so that a container running as any
 * user can write to it.
 */
import { chmod, mkdir } from 'node:fs/promises';

export const EMPTY_DIR_PLUGIN = 'kubernetes.io~empty-dir';

export async function setUpEmptyDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o777);
  return dir;
}
