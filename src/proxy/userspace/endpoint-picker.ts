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
  /** endpointAddress of each endpoint, computed once per update rather than per connection. */
  private addresses: readonly string[] = [];
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

  /** Whether pick() looks at the client's IP (sessionAffinity ClientIP): when not, callers may pass ''. */
  get sessionAffinity(): boolean {
    return this.affinityTimeoutMs !== undefined;
  }

  /** Replace the usable endpoints (and the affinity timeout); clients stuck to a gone endpoint are forgotten. */
  update(endpoints: readonly Endpoint[], affinityTimeoutSeconds: number | undefined): void {
    const addresses = endpoints.map(endpointAddress);
    const changed = addresses.length !== this.addresses.length || addresses.some((a, i) => a !== this.addresses[i]);
    this.endpoints = endpoints;
    this.addresses = addresses;
    this.affinityTimeoutMs = affinityTimeoutSeconds === undefined ? undefined : affinityTimeoutSeconds * 1000;
    if (this.affinityTimeoutMs === undefined) this.affinity.clear();
    if (!changed) return;
    if (this.next >= endpoints.length) this.next = 0;
    const present = new Set(addresses);
    for (const [client, a] of this.affinity) if (!present.has(a.endpoint)) this.affinity.delete(client);
  }

  /**
   * The endpoint for a new connection from `clientIP`, skipping the ones in
   * `tried` (their endpointAddress; they refused this connection); undefined
   * when none is left.
   */
  pick(clientIP: string, tried?: ReadonlySet<string>): Endpoint | undefined {
    const count = this.endpoints.length;
    if (count === 0) return undefined;
    if (this.affinityTimeoutMs === undefined) {
      for (let i = 0; i < count; i++) {
        const at = this.next;
        this.next = at + 1 === count ? 0 : at + 1;
        if (tried === undefined || !tried.has(this.addresses[at]!)) return this.endpoints[at];
      }
      return undefined;
    }
    const now = this.now();
    const stuck = this.affinity.get(clientIP);
    if (stuck !== undefined && now - stuck.lastUsedMs <= this.affinityTimeoutMs && tried?.has(stuck.endpoint) !== true) {
      const at = this.addresses.indexOf(stuck.endpoint);
      if (at >= 0) {
        stuck.lastUsedMs = now;
        return this.endpoints[at];
      }
    }
    for (let i = 0; i < count; i++) {
      const at = this.next;
      this.next = at + 1 === count ? 0 : at + 1;
      const address = this.addresses[at]!;
      if (tried?.has(address) === true) continue;
      this.affinity.set(clientIP, { endpoint: address, lastUsedMs: now });
      return this.endpoints[at];
    }
    return undefined;
  }
}
