/**
 * A container's mounts from its volumeMounts, as upstream's makeMounts
 * (pkg/kubelet/kubelet_pods.go): the volume's host path, or with subPath (or
 * subPathExpr expanded against the container's env) a path inside it, made
 * as a directory with the volume's mode when missing and resolved through
 * symlinks without ever leaving the volume (upstream's safe subpath);
 * readOnly when the mount says so or the volume is one the kubelet writes
 * (configMap, secret, downwardAPI, projected); a relative mountPath is made
 * absolute. Not here: the /etc/hosts and termination-log mounts.
 * Errors carry upstream's messages; the container cannot be created
 * (CreateContainerConfigError).
 */
import { chmodSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { expand } from '../env/expansion.js';
import type { KeyValue, Mount } from '../runtime/interface.js';
import type { ContainerSpec } from '../types.js';
import { VolumeError } from './interface.js';
import { CONFIG_MAP_PLUGIN } from './plugins/config-map.js';
import { DOWNWARD_API_PLUGIN } from './plugins/downward-api.js';
import { PROJECTED_PLUGIN } from './plugins/projected.js';
import { SECRET_PLUGIN } from './plugins/secret.js';

/** Volumes whose contents the kubelet owns: upstream mounts them read-only whatever the mount says. */
const READ_ONLY_PLUGINS = new Set([CONFIG_MAP_PLUGIN, SECRET_PLUGIN, DOWNWARD_API_PLUGIN, PROJECTED_PLUGIN]);

const exists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

const within = (path: string, base: string): boolean => path === base || path.startsWith(base.endsWith(sep) ? base : base + sep);

/** upstream's ExpandContainerVolumeMounts: every reference must have a non-empty value. */
function expandSubPathExpr(expression: string, env: readonly KeyValue[]): string {
  const values = new Map(env.map((e) => [e.key, e.value]));
  const missing = new Set<string>();
  const expanded = expand(expression, (name) => {
    const value = values.get(name);
    if (value === undefined || value === '') missing.add(name);
    return value ?? '';
  });
  if (missing.size > 0) throw new Error(`missing value for ${[...missing].sort().join(', ')}`);
  return expanded;
}

/** Makes volumePath/subPath one directory at a time, refusing to step outside the volume through a symlink. */
function safeMakeDir(volumePath: string, subPath: string, mode: number): void {
  const base = realpathSync(volumePath);
  let current = volumePath;
  for (const part of subPath.split('/').filter((p) => p !== '' && p !== '.')) {
    current = join(current, part);
    if (exists(current)) {
      if (!within(realpathSync(current), base)) throw new Error(`${current} is outside the volume`);
      continue;
    }
    mkdirSync(current, { mode });
    chmodSync(current, mode); // mkdir honours the umask; the volume's mode must win
  }
}

/**
 * The mounts of one container. `env` (the container's resolved environment)
 * is needed only for subPathExpr; without it a subPathExpr mount fails.
 */
export function containerMounts(container: ContainerSpec, volumes: ReadonlyMap<string, string>, env?: readonly KeyValue[]): Mount[] {
  const mounts: Mount[] = [];
  for (const mount of container.volumeMounts ?? []) {
    const volumePath = volumes.get(mount.name);
    if (volumePath === undefined) throw new VolumeError(mount.name, `cannot find volume "${mount.name}" to mount into container "${container.name}"`);
    let subPath = mount.subPath ?? '';
    if (mount.subPathExpr !== undefined && mount.subPathExpr !== '') {
      try {
        subPath = expandSubPathExpr(mount.subPathExpr, env ?? []);
      } catch (e: unknown) {
        throw new VolumeError(mount.name, (e as Error).message, { cause: e });
      }
    }
    let hostPath = volumePath;
    if (subPath !== '') {
      if (isAbsolute(subPath)) throw new VolumeError(mount.name, `error SubPath \`${subPath}\` must not be an absolute path`);
      if (subPath.split('/').includes('..')) throw new VolumeError(mount.name, `unable to provision SubPath \`${subPath}\`: must not contain '..'`);
      const joined = join(volumePath, subPath);
      if (!exists(joined)) {
        try {
          safeMakeDir(volumePath, subPath, statSync(volumePath).mode & 0o7777);
        } catch (e: unknown) {
          throw new VolumeError(mount.name, `failed to create subPath directory for volumeMount "${mount.name}" of container "${container.name}"`, { cause: e });
        }
      }
      try {
        hostPath = realpathSync(joined);
        if (!within(hostPath, realpathSync(volumePath))) throw new Error(`${joined} resolves outside the volume`);
      } catch (e: unknown) {
        throw new VolumeError(mount.name, `failed to prepare subPath for volumeMount "${mount.name}" of container "${container.name}"`, { cause: e });
      }
    }
    const containerPath = isAbsolute(mount.mountPath) ? mount.mountPath : `/${mount.mountPath}`;
    const kubeletOwned = READ_ONLY_PLUGINS.has(basename(dirname(volumePath)));
    mounts.push({ containerPath, hostPath, readonly: mount.readOnly === true || kubeletOwned });
  }
  return mounts;
}
