/**
 * Which endpoint a new connection to one Service port goes to, as upstream's
 * userspace proxy chose it (pkg/proxy/userspace/roundrobin.go): round-robin
 * over the usable endpoints, except that with sessionAffinity ClientIP a
 * client keeps its endpoint until it has been idle for the affinity timeout
 * (or the endpoint is gone, or refused the client).
 */
import type { Endpoint } from '../interface.js';

export const endpointAddress = (e: Pick<Endpoint, 'ip' | 'port'>): string => `${e.ip}:${e.port}`;

interface Affinity {
  readonly endpoint: string;
  lastUsedMs: number;
}

export interface EndpointPickerOptions {
  /** The clock (tests). */
  readonly now?: () => number;
}

export class EndpointPicker {
  private endpoints: readonly Endpoint[] = [];
  private next = 0;
  private affinityTimeoutMs: number | undefined;
  private readonly affinity = new Map<string, Affinity>();
  private readonly now: () => number;

  constructor(options: EndpointPickerOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.endpoints.length;
  }

  /** Replace the usable endpoints (and the affinity timeout); clients stuck to a gone endpoint are forgotten. */
  update(endpoints: readonly Endpoint[], affinityTimeoutSeconds: number | undefined): void {
    const changed = endpoints.length !== this.endpoints.length || endpoints.some((e, i) => endpointAddress(e) !== endpointAddress(this.endpoints[i]!));
    this.endpoints = endpoints;
    this.affinityTimeoutMs = affinityTimeoutSeconds === undefined ? undefined : affinityTimeoutSeconds * 1000;
    if (this.affinityTimeoutMs === undefined) this.affinity.clear();
    if (!changed) return;
    if (this.next >= endpoints.length) this.next = 0;
    const present = new Set(endpoints.map(endpointAddress));
    for (const [client, a] of this.affinity) if (!present.has(a.endpoint)) this.affinity.delete(client);
  }

  /**
   * The endpoint for a new connection from `clientIP`, skipping the ones in
   * `tried` (they refused this connection); undefined when none is left.
   */
  pick(clientIP: string, tried: ReadonlySet<string> = new Set()): Endpoint | undefined {
    if (this.endpoints.length === 0) return undefined;
    const now = this.now();
    if (this.affinityTimeoutMs !== undefined) {
      const stuck = this.affinity.get(clientIP);
      if (stuck !== undefined && now - stuck.lastUsedMs <= this.affinityTimeoutMs && !tried.has(stuck.endpoint)) {
        const endpoint = this.endpoints.find((e) => endpointAddress(e) === stuck.endpoint);
        if (endpoint !== undefined) {
          stuck.lastUsedMs = now;
          return endpoint;
        }
      }
    }
    for (let i = 0; i < this.endpoints.length; i++) {
      const endpoint = this.endpoints[this.next]!;
      this.next = (this.next + 1) % this.endpoints.length;
      const address = endpointAddress(endpoint);
      if (tried.has(address)) continue;
      if (this.affinityTimeoutMs !== undefined) this.affinity.set(clientIP, { endpoint: address, lastUsedMs: now });
      return endpoint;
    }
    return undefined;
  }
}
