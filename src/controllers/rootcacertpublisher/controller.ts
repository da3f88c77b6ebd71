/**
 * The root CA certificate publisher (upstream
 * `root-ca-certificate-publisher-controller`, selected in --controllers as
 * `root-ca-cert-publisher`): every namespace holds a ConfigMap
 * `kube-root-ca.crt` whose `ca.crt` is the cluster CA (from --root-ca-file),
 * so that pods can verify the API server on its internal endpoints. The
 * ConfigMap is recreated when deleted and put back when its data changes or
 * its description annotation goes missing (upstream accepts any non-empty
 * description). A Terminating namespace gets none.
 */
import { readFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import type { Client } from '../../client/rest/interface.js';
import { CONFIG_MAPS, NAMESPACES } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { isNotFound, StatusError } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';

type NamespaceObject = Namespace & KubeObject;
type ConfigMapObject = ConfigMap & KubeObject;

export const ROOT_CA_CERT_CONFIG_MAP_NAME = 'kube-root-ca.crt';
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
export const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';
/** Upstream's controller name (logs); the --controllers name is the definition's. */
export const ROOT_CA_PUBLISHER_CONTROLLER_NAME = 'root-ca-certificate-publisher-controller';

export interface RootCaPublisherDeps {
  readonly client: Client;
  readonly rootCa: string;
  readonly namespaces: Indexer<NamespaceObject>;
  readonly configMaps: Indexer<ConfigMapObject>;
}

const isNamespaceTerminating = (e: unknown): boolean =>
  e instanceof StatusError && (e.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

/** The sync of one namespace (by name). */
export function newRootCaPublisherSyncer(deps: RootCaPublisherDeps): (namespace: string) => Promise<void> {
  const configMaps = deps.client.resource<ConfigMapObject>(CONFIG_MAPS);
  return async (namespace) => {
    const ns = deps.namespaces.get(namespace);
    if (ns === undefined || ns.metadata.deletionTimestamp !== undefined || (ns.status?.phase ?? 'Active') !== 'Active') return;
    const current = deps.configMaps.get(`${namespace}/${ROOT_CA_CERT_CONFIG_MAP_NAME}`);
    if (current === undefined) {
      const cm: ConfigMapObject = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CERT_CONFIG_MAP_NAME, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
        data: { 'ca.crt': deps.rootCa },
      };
      try {
        await configMaps.create(cm, { namespace });
      } catch (e: unknown) {
        // As upstream: no retry when the namespace is gone or terminating. AlreadyExists is retried: the cache then holds it and it is compared.
        if (isNotFound(e) || isNamespaceTerminating(e)) return;
        throw e;
      }
      return;
    }
    const data = current.data ?? {};
    const dataMatches = Object.keys(data).length === 1 && data['ca.crt'] === deps.rootCa;
    if (dataMatches && (current.metadata.annotations?.[DESCRIPTION_ANNOTATION] ?? '') !== '') return;
    const restored: ConfigMapObject = {
      ...current,
      metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
      data: { 'ca.crt': deps.rootCa },
    };
    await configMaps.update(restored, { namespace });
  };
}

/** Read and check --root-ca-file (upstream refuses to start on an unreadable or unparsable file). */
export async function readRootCaFile(path: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (e: unknown) {
    throw new Error(`error reading root-ca-file at ${path}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  try {
    new X509Certificate(pem);
  } catch (e: unknown) {
    throw new Error(`error parsing root-ca-file at ${path}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return pem;
}

export const rootCaCertPublisherController: ControllerDefinition = {
  name: 'root-ca-cert-publisher',
  enabledByDefault: true,
  async start(ctx: ControllerContext): Promise<void> {
    const file = ctx.options.rootCaFile;
    if (file === undefined || file === '') {
      ctx.logger.info(`${ROOT_CA_PUBLISHER_CONTROLLER_NAME} not started: no --root-ca-file given, so there is no root CA to publish`);
      return;
    }
    const rootCa = await readRootCaFile(file);
    const namespaces = ctx.informers.informerFor<NamespaceObject>(NAMESPACES);
    const configMaps = ctx.informers.informerFor<ConfigMapObject>(CONFIG_MAPS);
    const sync = newRootCaPublisherSyncer({ client: ctx.client, rootCa, namespaces: namespaces.indexer, configMaps: configMaps.indexer });
    const loop = startReconcileLoop(ctx, { name: 'root-ca-cert-publisher', reconcile: (key) => sync(key) });
    ctx.logger.info(`starting ${ROOT_CA_PUBLISHER_CONTROLLER_NAME} with the CA of ${file}`);
    namespaces.addEventHandler({
      onAdd: (ns) => loop.enqueue(ns.metadata.name ?? ''),
      onUpdate: (_old, ns) => {
        if ((ns.status?.phase ?? 'Active') === 'Active') loop.enqueue(ns.metadata.name ?? '');
      },
    });
    const ours = (cm: ConfigMapObject): void => {
      if (cm.metadata.name === ROOT_CA_CERT_CONFIG_MAP_NAME) loop.enqueue(cm.metadata.namespace ?? '');
    };
    configMaps.addEventHandler({ onUpdate: (_old, cm) => ours(cm), onDelete: ours });
  },
};
