/**
 * Restricted: inline volumes only of the types that need no host access:
 * configMap, csi, downwardAPI, emptyDir, ephemeral, image,
 * persistentVolumeClaim, projected, secret. Replaces baseline's hostPath check.
 */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';
import type { VolumeView } from '../pod-view.js';
import { joinQuote, pluralize, sortedSet } from '../text.js';
import { HOST_PATH_VOLUMES_ID } from './host-path-volumes.js';

const ALLOWED_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];

/** Upstream names the first restricted source it finds in this order. */
const RESTRICTED_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder',
  'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
];

const isSet = (v: VolumeView, source: string): boolean => v[source] !== undefined && v[source] !== null;

export const restrictedVolumes_1_0: CheckPodFn = (_meta, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const volume of spec.volumes ?? []) {
    if (ALLOWED_SOURCES.some((s) => isSet(volume, s))) continue;
    bad.push(volume.name);
    types.push(RESTRICTED_SOURCES.find((s) => isSet(volume, s)) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  const distinct = sortedSet(types);
  return forbiddenResult(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', distinct.length)} ${joinQuote(distinct)}`,
  );
};

export const CHECK_RESTRICTED_VOLUMES: Check = {
  id: 'restrictedVolumes',
  level: 'restricted',
  versions: [{ minimumVersion: majorMinor(1, 0), checkPod: restrictedVolumes_1_0, overrideCheckIDs: [HOST_PATH_VOLUMES_ID] }],
};
