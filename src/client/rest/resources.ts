/**
 * The built-in resources as {@link ResourceRef}s, read from the scheme the
 * API server serves, so that a client and the server never disagree on a
 * resource's kind or scope.
 */
import { BUILTIN_RESOURCES } from '../../api/resources.js';
import type { ResourceRef } from './interface.js';

/** The ref of a built-in resource; throws for one the cluster does not serve (a programming error). */
export function builtinResource(group: string, version: string, resource: string): ResourceRef {
  const info = BUILTIN_RESOURCES.find((r) => r.group === group && r.version === version && r.resource === resource);
  if (info === undefined) throw new Error(`k8ts serves no resource ${resource} in ${group === '' ? 'the core group' : group}/${version}`);
  return { group, version, resource, kind: info.kind, namespaced: info.namespaced };
}

export const PODS = builtinResource('', 'v1', 'pods');
export const NODES = builtinResource('', 'v1', 'nodes');
export const NAMESPACES = builtinResource('', 'v1', 'namespaces');
export const SERVICES = builtinResource('', 'v1', 'services');
export const ENDPOINTS = builtinResource('', 'v1', 'endpoints');
export const EVENTS = builtinResource('', 'v1', 'events');
export const SERVICE_ACCOUNTS = builtinResource('', 'v1', 'serviceaccounts');
export const CONFIG_MAPS = builtinResource('', 'v1', 'configmaps');
export const SECRETS = builtinResource('', 'v1', 'secrets');
export const DEPLOYMENTS = builtinResource('apps', 'v1', 'deployments');
export const REPLICA_SETS = builtinResource('apps', 'v1', 'replicasets');
export const DAEMON_SETS = builtinResource('apps', 'v1', 'daemonsets');
export const STATEFUL_SETS = builtinResource('apps', 'v1', 'statefulsets');
export const CONTROLLER_REVISIONS = builtinResource('apps', 'v1', 'controllerrevisions');
export const JOBS = builtinResource('batch', 'v1', 'jobs');
export const CRON_JOBS = builtinResource('batch', 'v1', 'cronjobs');
export const CERTIFICATE_SIGNING_REQUESTS = builtinResource('certificates.k8s.io', 'v1', 'certificatesigningrequests');
export const LEASES = builtinResource('coordination.k8s.io', 'v1', 'leases');
export const ENDPOINT_SLICES = builtinResource('discovery.k8s.io', 'v1', 'endpointslices');
export const POD_DISRUPTION_BUDGETS = builtinResource('policy', 'v1', 'poddisruptionbudgets');
