/**
 * The kubeconfig-format file of --authorization-webhook-config-file, as
 * upstream reads it: the current context's cluster (server, certificate
 * authority) and user (client certificate and key, or a token). Paths in the
 * file are relative to the file's directory.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

export interface WebhookEndpoint {
  readonly server: URL;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  /** TLS server name override (cluster.tls-server-name). */
  readonly servername?: string;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function named(list: unknown, name: string | undefined, what: string, file: string): Rec {
  const entries = Array.isArray(list) ? list.map(rec) : [];
  const found = name === undefined ? entries[0] : entries.find((e) => e.name === name);
  if (found === undefined) throw new Error(`${file}: no ${what}${name !== undefined ? ` named "${name}"` : ''}`);
  return found;
}

export function loadWebhookConfig(file: string): WebhookEndpoint {
  let doc: Rec;
  try {
    doc = rec(parse(readFileSync(file, 'utf8')));
  } catch (e: unknown) {
    throw new Error(`reading the authorization webhook config ${file}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return parseWebhookConfig(doc, file);
}

export function parseWebhookConfig(doc: Rec, file: string): WebhookEndpoint {
  const base = dirname(file);
  const readData = (data: unknown, path: unknown): string | undefined => {
    const inline = str(data);
    if (inline !== undefined) return Buffer.from(inline, 'base64').toString('utf8');
    const p = str(path);
    if (p === undefined) return undefined;
    const full = isAbsolute(p) ? p : join(base, p);
    try {
      return readFileSync(full, 'utf8');
    } catch (e: unknown) {
      throw new Error(`${file}: reading ${full}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
  const contextName = str(doc['current-context']);
  const context = contextName !== undefined || Array.isArray(doc.contexts) ? rec(named(doc.contexts, contextName, 'context', file).context) : {};
  const cluster = rec(named(doc.clusters, str(context.cluster), 'cluster', file).cluster);
  const users = Array.isArray(doc.users) && doc.users.length > 0 ? rec(named(doc.users, str(context.user), 'user', file).user) : {};
  const server = str(cluster.server);
  if (server === undefined) throw new Error(`${file}: the cluster has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch (e: unknown) {
    throw new Error(`${file}: invalid server URL "${server}"`, { cause: e });
  }
  if (url.protocol !== 'https:') throw new Error(`${file}: the server URL "${server}" must use https`);
  const ca = readData(cluster['certificate-authority-data'], cluster['certificate-authority']);
  const cert = readData(users['client-certificate-data'], users['client-certificate']);
  const key = readData(users['client-key-data'], users['client-key']);
  const token = str(users.token) ?? (str(users.tokenFile) !== undefined ? readData(undefined, users.tokenFile)?.trim() : undefined);
  const servername = str(cluster['tls-server-name']);
  return {
    server: url,
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined ? { cert } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(servername !== undefined ? { servername } : {}),
  };
}
