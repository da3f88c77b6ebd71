/**
 * Kubeconfig files: read the YAML, pick a context, and turn its cluster and
 * user into a {@link RestConfig}. Paths inside the file (certificate-authority,
 * client-certificate, client-key, tokenFile, a relative exec command) are
 * relative to the file, as kubectl reads them. Every error names the file
 * and the field.
 *
 * @example
 *   const config = restConfigFromKubeconfig('.k8ts/admin.kubeconfig', { userAgent: defaultUserAgent('scheduler') });
 *   const client = newHttpClient(config);
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import type { ExecPluginConfig, RestConfig } from './rest-config.js';

type Json = Record<string, unknown>;

export interface Kubeconfig {
  readonly path: string;
  readonly currentContext: string;
  readonly clusters: ReadonlyMap<string, Json>;
  readonly users: ReadonlyMap<string, Json>;
  readonly contexts: ReadonlyMap<string, Json>;
}

export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function namedEntries(path: string, doc: Json, field: 'clusters' | 'users' | 'contexts', inner: string): Map<string, Json> {
  const list = doc[field] ?? [];
  if (!Array.isArray(list)) throw new KubeconfigError(`${path}: ${field} must be a list`);
  const out = new Map<string, Json>();
  list.forEach((entry: unknown, i) => {
    if (!isObject(entry) || typeof entry['name'] !== 'string') throw new KubeconfigError(`${path}: ${field}[${i}].name must be a string`);
    const value = entry[inner] ?? {};
    if (!isObject(value)) throw new KubeconfigError(`${path}: ${field}[${i}].${inner} must be a mapping`);
    out.set(entry['name'], value);
  });
  return out;
}

/** Read and parse a kubeconfig file. */
export function loadKubeconfig(path: string): Kubeconfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e: unknown) {
    throw new KubeconfigError(`cannot read kubeconfig ${path}: ${(e as Error).message}`, { cause: e });
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e: unknown) {
    throw new KubeconfigError(`kubeconfig ${path} is not valid YAML: ${(e as Error).message}`, { cause: e });
  }
  if (!isObject(doc)) throw new KubeconfigError(`kubeconfig ${path} is not a mapping`);
  const current = doc['current-context'];
  return {
    path,
    currentContext: typeof current === 'string' ? current : '',
    clusters: namedEntries(path, doc, 'clusters', 'cluster'),
    users: namedEntries(path, doc, 'users', 'user'),
    contexts: namedEntries(path, doc, 'contexts', 'context'),
  };
}

export interface RestConfigOptions {
  /** The context to use (default current-context). */
  readonly context?: string;
  readonly userAgent?: string;
  readonly qps?: number;
  readonly burst?: number;
  readonly maxRetries?: number;
}

/** The RestConfig of one context of a kubeconfig file. */
export function restConfigFromKubeconfig(path: string, options: RestConfigOptions = {}): RestConfig {
  const kc = loadKubeconfig(path);
  const base = dirname(resolve(path));
  const contextName = options.context ?? kc.currentContext;
  if (contextName === '') throw new KubeconfigError(`${path}: no context given and current-context is not set`);
  const context = kc.contexts.get(contextName);
  if (context === undefined) throw new KubeconfigError(`${path}: context "${contextName}" does not exist`);
  const clusterName = str(path, context, `contexts[${contextName}].context.cluster`, 'cluster');
  if (clusterName === undefined) throw new KubeconfigError(`${path}: contexts[${contextName}].context.cluster is not set`);
  const cluster = kc.clusters.get(clusterName);
  if (cluster === undefined) throw new KubeconfigError(`${path}: cluster "${clusterName}" of context "${contextName}" does not exist`);
  const userName = str(path, context, `contexts[${contextName}].context.user`, 'user');
  const user = userName === undefined || userName === '' ? {} : kc.users.get(userName);
  if (user === undefined) throw new KubeconfigError(`${path}: user "${userName}" of context "${contextName}" does not exist`);

  const where = (field: string, of: 'clusters' | 'users', name: string): string => `${of}[${name}].${field}`;
  const server = str(path, cluster, where('server', 'clusters', clusterName), 'server');
  if (server === undefined || server === '') throw new KubeconfigError(`${path}: clusters[${clusterName}].cluster.server is not set`);
  const pem = (dataField: string, fileField: string, entry: Json, of: 'clusters' | 'users', name: string): string | undefined => {
    const data = str(path, entry, where(dataField, of, name), dataField);
    if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
    const file = str(path, entry, where(fileField, of, name), fileField);
    return file === undefined ? undefined : readRelative(path, base, file, where(fileField, of, name));
  };
  const u = userName ?? '';
  const tokenFile = str(path, user, where('tokenFile', 'users', u), 'tokenFile');
  const insecure = cluster['insecure-skip-tls-verify'];
  return {
    server,
    ...opt('ca', pem('certificate-authority-data', 'certificate-authority', cluster, 'clusters', clusterName)),
    ...opt('clientCert', pem('client-certificate-data', 'client-certificate', user, 'users', u)),
    ...opt('clientKey', pem('client-key-data', 'client-key', user, 'users', u)),
    ...opt('token', str(path, user, where('token', 'users', u), 'token')),
    ...opt('tokenFile', tokenFile === undefined ? undefined : resolve(base, tokenFile)),
    ...opt('exec', execConfig(path, base, user, u)),
    ...(insecure === true ? { insecureSkipTlsVerify: true } : {}),
    ...opt('userAgent', options.userAgent),
    ...opt('qps', options.qps),
    ...opt('burst', options.burst),
    ...opt('maxRetries', options.maxRetries),
  };
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function str(path: string, entry: Json, where: string, field: string): string | undefined {
  const v = entry[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new KubeconfigError(`${path}: ${where} must be a string`);
  return v;
}

function readRelative(path: string, base: string, file: string, where: string): string {
  const full = isAbsolute(file) ? file : resolve(base, file);
  try {
    return readFileSync(full, 'utf8');
  } catch (e: unknown) {
    throw new KubeconfigError(`${path}: cannot read ${where} ${full}: ${(e as Error).message}`, { cause: e });
  }
}

function execConfig(path: string, base: string, user: Json, userName: string): ExecPluginConfig | undefined {
  const exec = user['exec'];
  if (exec === undefined || exec === null) return undefined;
  const where = `users[${userName}].user.exec`;
  if (!isObject(exec)) throw new KubeconfigError(`${path}: ${where} must be a mapping`);
  const command = str(path, exec, `${where}.command`, 'command');
  if (command === undefined || command === '') throw new KubeconfigError(`${path}: ${where}.command is not set`);
  const apiVersion = str(path, exec, `${where}.apiVersion`, 'apiVersion') ?? 'client.authentication.k8s.io/v1';
  const args = exec['args'] ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new KubeconfigError(`${path}: ${where}.args must be a list of strings`);
  const env = exec['env'] ?? [];
  if (!Array.isArray(env) || !env.every((e) => isObject(e) && typeof e['name'] === 'string' && typeof e['value'] === 'string')) {
    throw new KubeconfigError(`${path}: ${where}.env must be a list of {name, value}`);
  }
  // As kubectl: a command with a path separator is relative to the kubeconfig; a bare name is looked up on PATH.
  const resolved = command.includes('/') && !isAbsolute(command) ? resolve(base, command) : command;
  return { command: resolved, args: args as string[], env: env as { name: string; value: string }[], apiVersion, cwd: base };
}
