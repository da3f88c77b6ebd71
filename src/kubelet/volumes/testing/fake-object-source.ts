/**
 * An in-memory {@link PodObjectSource} for unit tests: objects put in its
 * maps are found, others are absent (undefined), `fail` makes every read
 * reject (an unreachable API server), and tokens are numbered
 * (`token-1`, `token-2`, …) with an expiry of clock() + expirationSeconds.
 */
import type { ConfigMap, Pod, Secret, Service } from '../../types.js';
import type { PodObjectSource } from '../interface.js';

export interface TokenRequestRecord {
  readonly pod: string;
  readonly audience: string | undefined;
  readonly expirationSeconds: number;
}

export class FakeObjectSource implements PodObjectSource {
  readonly configMaps = new Map<string, ConfigMap>();
  readonly secrets = new Map<string, Secret>();
  readonly serviceList: Service[] = [];
  readonly tokenRequests: TokenRequestRecord[] = [];
  /** When set, every call rejects with it. */
  fail: Error | undefined;
  now: () => number;

  constructor(options: { readonly clock?: () => number } = {}) {
    this.now = options.clock ?? Date.now;
  }

  addConfigMap(namespace: string, name: string, data: Record<string, string>, binaryData?: Record<string, string>): void {
    this.configMaps.set(`${namespace}/${name}`, { metadata: { namespace, name }, data, ...(binaryData !== undefined ? { binaryData } : {}) });
  }

  /** data in plain text; stored base64 as the API serves it. */
  addSecret(namespace: string, name: string, data: Record<string, string>): void {
    const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
    this.secrets.set(`${namespace}/${name}`, { metadata: { namespace, name }, data: encoded });
  }

  addService(namespace: string, name: string, clusterIP: string, ports: { name?: string; port: number; protocol?: string }[]): void {
    this.serviceList.push({ metadata: { namespace, name }, spec: { clusterIP, ports } });
  }

  async configMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    if (this.fail !== undefined) throw this.fail;
    return this.configMaps.get(`${namespace}/${name}`);
  }

  async secret(namespace: string, name: string): Promise<Secret | undefined> {
    if (this.fail !== undefined) throw this.fail;
    return this.secrets.get(`${namespace}/${name}`);
  }

  async services(namespace: string): Promise<Service[]> {
    if (this.fail !== undefined) throw this.fail;
    return this.serviceList.filter((s) => s.metadata.namespace === namespace);
  }

  async serviceAccountToken(pod: Pod, request: { readonly audience?: string; readonly expirationSeconds: number }): Promise<{ token: string; expirationTimestamp: string }> {
    if (this.fail !== undefined) throw this.fail;
    this.tokenRequests.push({ pod: pod.metadata.name ?? '', audience: request.audience, expirationSeconds: request.expirationSeconds });
    return {
      token: `token-${this.tokenRequests.length}`,
      expirationTimestamp: new Date(this.now() + request.expirationSeconds * 1000).toISOString(),
    };
  }
}
