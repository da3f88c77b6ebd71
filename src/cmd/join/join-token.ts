/**
 * Join tokens as `k8ts token` and `k8ts server` manage them: bootstrap-token
 * Secrets in kube-system (machinery/bootstrap-token.ts), read back into what
 * `k8ts token list` shows and what decides whether a token still works.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BOOTSTRAP_TOKEN_KEYS,
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  bootstrapSecretMatches,
  bootstrapTokenSecret,
  bootstrapTokenSecretName,
  formatBootstrapToken,
  generateBootstrapToken,
  parseBootstrapToken,
  type BootstrapToken,
} from '../../machinery/bootstrap-token.js';
import type { KubeObject } from '../../machinery/meta.js';
import { isNotFound } from '../../machinery/status.js';
import type { Client } from '../../client/rest/interface.js';
import { SECRETS } from '../../client/rest/resources.js';
import { writeFileAtomic } from '../pki/write-file-atomic.js';

export const DEFAULT_TOKEN_TTL_MS = 24 * 3600_000;

export interface JoinTokenInfo {
  readonly token: BootstrapToken;
  /** Undefined: never expires. */
  readonly expires?: Date;
  readonly description?: string;
  readonly usages: readonly string[];
  readonly extraGroups: readonly string[];
}

interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

/** What a bootstrap-token Secret says; undefined when it is not a well-formed one. */
export function readTokenSecret(secret: SecretObject): JoinTokenInfo | undefined {
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return undefined;
  const k = BOOTSTRAP_TOKEN_KEYS;
  const value = (key: string): string | undefined => {
    const v = secret.data?.[key];
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
  };
  const id = value(k.id);
  const secretPart = value(k.secret);
  const token = id !== undefined && secretPart !== undefined ? parseBootstrapToken(`${id}.${secretPart}`) : undefined;
  if (token === undefined || secret.metadata.name !== bootstrapTokenSecretName(token.id)) return undefined;
  const expiration = value(k.expiration);
  const expires = expiration !== undefined ? new Date(expiration) : undefined;
  const description = value(k.description);
  const usages = Object.keys(secret.data ?? {})
    .filter((key) => key.startsWith('usage-bootstrap-') && value(key) === 'true')
    .map((key) => key.slice('usage-bootstrap-'.length))
    .sort();
  return {
    token,
    ...(expires !== undefined ? { expires } : {}),
    ...(description !== undefined ? { description } : {}),
    usages,
    extraGroups: (value(k.extraGroups) ?? '').split(',').filter((g) => g !== ''),
  };
}

/** Whether the token authenticates now and for at least `marginMs` more (an unparseable expiration never does). */
export function tokenIsUsable(info: JoinTokenInfo, now: Date, marginMs = 0): boolean {
  if (!info.usages.includes('authentication')) return false;
  if (info.expires === undefined) return true;
  return !Number.isNaN(info.expires.getTime()) && info.expires.getTime() - now.getTime() > marginMs;
}

export interface CreateJoinTokenOptions {
  /** 0: never expires (kubeadm's --ttl 0). */
  readonly ttlMs: number;
  readonly description?: string;
  readonly now?: Date;
  /** A chosen token (default: a random one). */
  readonly token?: BootstrapToken;
}

export async function createJoinToken(client: Client, options: CreateJoinTokenOptions): Promise<JoinTokenInfo> {
  const token = options.token ?? generateBootstrapToken();
  const expires = options.ttlMs > 0 ? new Date((options.now ?? new Date()).getTime() + options.ttlMs) : undefined;
  const secret = bootstrapTokenSecret({ token, ...(expires !== undefined ? { expires } : {}), ...(options.description !== undefined ? { description: options.description } : {}) });
  const created = await client.resource<SecretObject>(SECRETS).create(secret as SecretObject);
  const info = readTokenSecret(created);
  if (info === undefined) throw new Error(`the server stored bootstrap token Secret ${secret.metadata.name} in a form that is not a bootstrap token`);
  return info;
}

/** Every bootstrap token, sorted by id. */
export async function listJoinTokens(client: Client): Promise<JoinTokenInfo[]> {
  const list = await client.resource<SecretObject>(SECRETS).list({ namespace: BOOTSTRAP_TOKEN_NAMESPACE });
  return list.items
    .map(readTokenSecret)
    .filter((t): t is JoinTokenInfo => t !== undefined)
    .sort((a, b) => a.token.id.localeCompare(b.token.id));
}

/** The token of a Secret that still matches `token` (same secret part), or undefined. */
export async function getJoinToken(client: Client, token: BootstrapToken): Promise<JoinTokenInfo | undefined> {
  try {
    const info = readTokenSecret(await client.resource<SecretObject>(SECRETS).get(bootstrapTokenSecretName(token.id), { namespace: BOOTSTRAP_TOKEN_NAMESPACE }));
    return info !== undefined && bootstrapSecretMatches(token.secret, info.token.secret) ? info : undefined;
  } catch (e: unknown) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Deletes a token given as `<id>` or `<id>.<secret>`; throws NotFound-worded errors for an unknown one. */
export async function deleteJoinToken(client: Client, idOrToken: string): Promise<string> {
  const id = parseBootstrapToken(idOrToken)?.id ?? (/^[a-z0-9]{6}$/.test(idOrToken) ? idOrToken : undefined);
  if (id === undefined) throw new Error(`invalid token "${idOrToken}": give the token id ([a-z0-9]{6}) or the whole token`);
  try {
    await client.resource(SECRETS).delete(bootstrapTokenSecretName(id), { namespace: BOOTSTRAP_TOKEN_NAMESPACE });
  } catch (e: unknown) {
    if (isNotFound(e)) throw new Error(`bootstrap token "${id}" not found`, { cause: e });
    throw e;
  }
  return id;
}

/** Where `k8ts server` records its join token. */
export const joinTokenFile = (dataDir: string): string => join(dataDir, 'join-token');

/** A recorded token with less time than this left is replaced on start. */
const REUSE_MARGIN_MS = 3600_000;

/**
 * The join token of `k8ts server`: the one recorded in the data directory if
 * its Secret still exists, matches and has an hour left, else a new one (24 h),
 * recorded for the next start.
 */
export async function ensureServerJoinToken(client: Client, dataDir: string, now = new Date()): Promise<JoinTokenInfo & { reused: boolean }> {
  const recorded = parseBootstrapToken((await readFile(joinTokenFile(dataDir), 'utf8').catch(() => '')).trim());
  if (recorded !== undefined) {
    const info = await getJoinToken(client, recorded);
    if (info !== undefined && tokenIsUsable(info, now, REUSE_MARGIN_MS)) return { ...info, reused: true };
  }
  const created = await createJoinToken(client, { ttlMs: DEFAULT_TOKEN_TTL_MS, description: 'made by k8ts server to join nodes', now });
  await writeFileAtomic(joinTokenFile(dataDir), `${formatBootstrapToken(created.token)}\n`, { mode: 0o600 });
  return { ...created, reused: false };
}
