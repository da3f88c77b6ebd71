/**
 * The cluster DNS component: informers on Services and EndpointSlices feed
 * the zone index, the DNS listeners answer from it, and an HTTP server
 * reports health, readiness (informers synced) and metrics.
 *
 *   API server ─▶ informers ─▶ ZoneIndex ─▶ resolver ─▶ UDP/TCP listeners
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { newInformerFactory } from '../client/cache/informer-factory.js';
import type { Client } from '../client/rest/interface.js';
import { startDnsServer, type DnsServer } from './dns-server.js';
import { newForwarder, type Upstream } from './forwarder.js';
import { startHealthServer } from './health-server.js';
import { newDnsMetrics } from './metrics.js';
import { newQueryHandler } from './query-handler.js';
import { canonicalName, DEFAULT_CLUSTER_DOMAIN, DEFAULT_TTL_SECONDS } from './records.js';
import { feedZone } from './zone-informers.js';
import { ZoneIndex } from './zone-index.js';

export interface ClusterDnsOptions {
  readonly client: Client;
  /** Where the DNS listeners bind (UDP and TCP); port 0 picks a free one. */
  readonly host: string;
  readonly port: number;
  /** Default cluster.local. */
  readonly domain?: string;
  /** Default 5 s. */
  readonly ttl?: number;
  /** Resolvers for names outside the domain; none: REFUSED. */
  readonly upstreams?: readonly Upstream[];
  /** Where /healthz, /readyz and /metrics are served. */
  readonly healthHost: string;
  readonly healthPort: number;
  /** Informer failures and handler errors. */
  readonly onError?: (message: string, error: unknown) => void;
}

export interface ClusterDns {
  readonly dns: { readonly host: string; readonly port: number };
  readonly health: { readonly host: string; readonly port: number };
  readonly zone: ZoneIndex;
  /** Resolves once the informers have synced (the zone holds every Service). */
  readonly synced: Promise<void>;
  readonly ready: boolean;
  stop(): Promise<void>;
}

export async function startClusterDns(options: ClusterDnsOptions): Promise<ClusterDns> {
  const domain = canonicalName(options.domain ?? DEFAULT_CLUSTER_DOMAIN);
  const ttl = options.ttl ?? DEFAULT_TTL_SECONDS;
  const onError = options.onError ?? (() => undefined);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const zone = new ZoneIndex();
  const informers = newInformerFactory(options.client, { resyncPeriodMs: 0, onError });
  feedZone({ informers, zone, domain, ttl });

  let synced = false;
  let dns: DnsServer | undefined;
  let health: Server | undefined;
  try {
    const server = `dns://${options.host}:${options.port}`;
    dns = await startDnsServer({
      host: options.host,
      port: options.port,
      handle: newQueryHandler({
        zone,
        domain,
        ttl,
        metrics: newDnsMetrics(registry, server),
        ...(options.upstreams !== undefined && options.upstreams.length > 0 ? { forward: newForwarder({ upstreams: options.upstreams }) } : {}),
      }),
      onError: (e) => onError('DNS query handler failed', e),
    });
    health = await startHealthServer({ host: options.healthHost, port: options.healthPort, registry, ready: () => synced });
  } catch (e: unknown) {
    await dns?.close();
    throw e;
  }
  const stopped = new AbortController();
  informers.start();
  const syncedPromise = informers.waitForCacheSync(stopped.signal).then(() => {
    synced = true;
  });
  syncedPromise.catch(() => undefined);
  const dnsServer = dns;
  const healthServer = health;
  return {
    dns: { host: dnsServer.host, port: dnsServer.port },
    health: { host: options.healthHost, port: (healthServer.address() as AddressInfo).port },
    zone,
    synced: syncedPromise,
    get ready() {
      return synced;
    },
    stop: async () => {
      stopped.abort();
      informers.stop();
      await dnsServer.close();
      await new Promise<void>((resolve) => {
        healthServer.close(() => resolve());
        healthServer.closeAllConnections();
      });
    },
  };
}
