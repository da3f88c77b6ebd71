/**
 * bootstrapsigner (upstream's bootstrap Signer; off by default as upstream):
 * keeps kube-public/cluster-info signed for every bootstrap token that may
 * sign (usage-bootstrap-signing=true, not expired). For each such token the
 * ConfigMap holds `jws-kubeconfig-<id>`: a detached JWS (HS256, kid the
 * token id, the token secret as key) of its `kubeconfig` value, so that a
 * joining node holding the token can check the cluster-info it read
 * anonymously. Signatures of tokens that are gone or expired are removed;
 * the ConfigMap is looked at again when the next token expires.
 */
import { CompactSign } from 'jose';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import type { Client } from '../../client/rest/interface.js';
import { CONFIG_MAPS, SECRETS } from '../../client/rest/resources.js';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  CLUSTER_INFO_KUBECONFIG_KEY,
  CLUSTER_INFO_NAME,
  CLUSTER_INFO_NAMESPACE,
} from '../../machinery/bootstrap-token.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import { isBootstrapTokenSecret, signingToken, tokenExpiration, type SecretObject } from './token-secret.js';

type ConfigMapObject = ConfigMap & KubeObject;

/** Upstream's prefix of the signature keys in cluster-info. */
export const JWS_SIGNATURE_KEY_PREFIX = 'jws-kubeconfig-';
export const MAX_REQUEUE_MS = 24 * 3600_000;

/** The detached JWS of content (`<header>..<signature>`), as upstream's ComputeDetachedSignature. */
export async function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(content))
    .setProtectedHeader({ alg: 'HS256', kid: tokenId })
    .sign(new TextEncoder().encode(tokenSecret));
  const [header, , signature] = jws.split('.');
  return `${header ?? ''}..${signature ?? ''}`;
}

export interface BootstrapSignerOptions {
  readonly client: Client;
  readonly configMaps: Indexer<ConfigMapObject>;
  readonly secrets: Indexer<SecretObject>;
  readonly now?: () => number;
}

/** The sync of cluster-info. */
export function newBootstrapSigner(options: BootstrapSignerOptions): () => Promise<ReconcileResult | void> {
  const configMaps = options.client.resource<ConfigMapObject>(CONFIG_MAPS);
  const now = options.now ?? Date.now;
  return async () => {
    const t = now();
    const tokenSecrets = options.secrets.list().filter((s) => s.metadata.namespace === BOOTSTRAP_TOKEN_NAMESPACE && isBootstrapTokenSecret(s));
    const expirations = tokenSecrets.map((s) => tokenExpiration(s, t).ttlMs).filter((ms): ms is number => ms !== undefined);
    const result = expirations.length > 0 ? { requeueAfterMs: Math.min(Math.min(...expirations) + 1, MAX_REQUEUE_MS) } : undefined;

    const cm = options.configMaps.get(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}`);
    if (cm === undefined) return result;
    const content = cm.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
    if (content === undefined) return result;

    const data: Record<string, string> = {};
    const old: Record<string, string> = {};
    for (const [key, value] of Object.entries(cm.data ?? {})) {
      if (key.startsWith(JWS_SIGNATURE_KEY_PREFIX)) old[key] = value;
      else data[key] = value;
    }
    for (const secret of tokenSecrets) {
      const token = signingToken(secret, t);
      if (token === undefined) continue;
      data[`${JWS_SIGNATURE_KEY_PREFIX}${token.id}`] = await computeDetachedSignature(content, token.id, token.secret);
    }
    const signatures = (d: Record<string, string>): string[] => Object.keys(d).filter((k) => k.startsWith(JWS_SIGNATURE_KEY_PREFIX)).sort();
    const unchanged = signatures(data).length === signatures(old).length && signatures(data).every((k) => old[k] === data[k]);
    if (!unchanged) await configMaps.update({ ...cm, data });
    return result;
  };
}

export const bootstrapSignerController: ControllerDefinition = {
  name: 'bootstrapsigner',
  enabledByDefault: false,
  start(ctx: ControllerContext): void {
    const configMaps = ctx.informers.informerFor<ConfigMapObject>(CONFIG_MAPS, { namespace: CLUSTER_INFO_NAMESPACE });
    const secrets = ctx.informers.informerFor<SecretObject>(SECRETS, { namespace: BOOTSTRAP_TOKEN_NAMESPACE });
    const sync = newBootstrapSigner({ client: ctx.client, configMaps: configMaps.indexer, secrets: secrets.indexer });
    const key = `${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}`;
    const loop = startReconcileLoop(ctx, { name: 'bootstrap_signer_queue', workers: 1, reconcile: () => sync() });
    const onConfigMap = (cm: ConfigMapObject): void => {
      if (cm.metadata.name === CLUSTER_INFO_NAME) loop.enqueue(key);
    };
    configMaps.addEventHandler({ onAdd: onConfigMap, onUpdate: (_old, cm) => onConfigMap(cm) });
    const onSecret = (s: SecretObject): void => {
      if (isBootstrapTokenSecret(s)) loop.enqueue(key);
    };
    secrets.addEventHandler({ onAdd: onSecret, onUpdate: (_old, s) => onSecret(s), onDelete: onSecret });
  },
};
