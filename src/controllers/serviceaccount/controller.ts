/**
 * The service account controller (upstream `serviceaccount`): every active
 * namespace has a ServiceAccount named `default`, recreated when deleted.
 * A namespace that is Terminating gets none (its creates would be refused).
 */
import type { Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { objectKey, type Indexer } from '../../client/cache/interfaces.js';
import type { Client } from '../../client/rest/interface.js';
import { NAMESPACES, SERVICE_ACCOUNTS } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { isAlreadyExists, isForbidden, isNotFound } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';

export type NamespaceObject = Namespace & KubeObject;
export type ServiceAccountObject = ServiceAccount & KubeObject;

/** The service accounts every namespace gets (upstream's DefaultServiceAccountsControllerOptions). */
export const DEFAULT_SERVICE_ACCOUNTS: readonly string[] = ['default'];

export interface ServiceAccountSyncerDeps {
  readonly client: Client;
  readonly namespaces: Indexer<NamespaceObject>;
  readonly serviceAccounts: Indexer<ServiceAccountObject>;
  readonly names?: readonly string[];
}

/** The sync of one namespace (by name). */
export function newServiceAccountSyncer(deps: ServiceAccountSyncerDeps): (namespace: string) => Promise<void> {
  const accounts = deps.client.resource<ServiceAccountObject>(SERVICE_ACCOUNTS);
  return async (namespace) => {
    const ns = deps.namespaces.get(namespace);
    if (ns === undefined || ns.metadata.deletionTimestamp !== undefined || (ns.status?.phase ?? 'Active') !== 'Active') return;
    for (const name of deps.names ?? DEFAULT_SERVICE_ACCOUNTS) {
      if (deps.serviceAccounts.get(`${namespace}/${name}`) !== undefined) continue;
      try {
        await accounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } }, { namespace });
      } catch (e: unknown) {
        // Already there (our cache is behind), or the namespace went away or began terminating meanwhile.
        if (isAlreadyExists(e) || isNotFound(e) || isForbidden(e)) continue;
        throw e;
      }
    }
  };
}

export const serviceAccountController: ControllerDefinition = {
  name: 'serviceaccount',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const namespaces = ctx.informers.informerFor<NamespaceObject>(NAMESPACES);
    const serviceAccounts = ctx.informers.informerFor<ServiceAccountObject>(SERVICE_ACCOUNTS);
    const sync = newServiceAccountSyncer({ client: ctx.client, namespaces: namespaces.indexer, serviceAccounts: serviceAccounts.indexer });
    const loop = startReconcileLoop(ctx, { name: 'serviceaccount', reconcile: (key) => sync(key) });
    namespaces.addEventHandler({
      onAdd: (ns) => loop.enqueue(objectKey(ns)),
      onUpdate: (_old, ns) => loop.enqueue(objectKey(ns)),
    });
    serviceAccounts.addEventHandler({
      onDelete: (sa) => {
        if ((DEFAULT_SERVICE_ACCOUNTS as readonly (string | undefined)[]).includes(sa.metadata.name)) loop.enqueue(sa.metadata.namespace ?? '');
      },
    });
  },
};
