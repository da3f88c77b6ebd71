/**
 * The kubelet's own HTTPS server (--port, default 10250, on the node IP), as
 * upstream's: /healthz, /metrics, /pods, and the streaming endpoints the API
 * server proxies pods/log, pods/exec, pods/attach and pods/portforward to:
 *
 *   GET  /containerLogs/{namespace}/{pod}/{container}?follow&previous&tailLines&sinceSeconds&sinceTime&timestamps&limitBytes
 *   GET|POST /exec/{namespace}/{pod}/{container}?command=…&stdin&stdout&stderr&tty   (upgrade)
 *   GET|POST /attach/{namespace}/{pod}/{container}?stdin&stdout&stderr&tty        (upgrade)
 *   GET|POST /portForward/{namespace}/{pod}?port=…                                 (upgrade)
 *
 * Upgrades: WebSocket (v5/v4.channel.k8s.io, … and portforward.k8s.io,
 * SPDY/3.1+portforward.k8s.io) and SPDY/3.1 (Upgrade: SPDY/3.1 with
 * X-Stream-Protocol-Version v4/v3/v2.channel.k8s.io or portforward.k8s.io).
 *
 * Callers authenticate with a client certificate of --client-ca-file; each
 * request is authorized by a SubjectAccessReview as upstream's kubelet does
 * (resource nodes, subresource proxy/log/stats/…, name = the node).
 *
 * Pods and containers are found in the runtime by the labels of
 * runtime/labels.ts (the newest ready sandbox of namespace/name; the newest
 * container of that name, or for `previous` the one the pod's status names as
 * lastState.terminated: see container-lookup.ts).
 */
import type { Client } from '../../client/rest/interface.js';
import type { Logger } from '../../machinery/logger.js';
import type { ContainerRuntime } from '../runtime/interface.js';

export interface KubeletServerOptions {
  readonly nodeName: string;
  /** Where to listen (the node IP) and on which port (0: any free one). */
  readonly address: string;
  readonly port: number;
  /** PEM files: the serving certificate and key, and the CA whose client certificates are accepted. */
  readonly tlsCertFile: string;
  readonly tlsPrivateKeyFile: string;
  readonly clientCaFile: string;
  readonly runtime: ContainerRuntime;
  /** For SubjectAccessReviews (authorization.k8s.io/v1), with the kubelet's identity. */
  readonly client: Client;
  readonly logger: Logger;
  /** Prometheus text of the kubelet's own metrics for /metrics. */
  readonly metrics: () => Promise<string>;
}

export interface KubeletServer {
  /** The port it listens on (the given one, or the one picked for 0). */
  readonly port: number;
  /** Stops listening and ends open streams. */
  close(): Promise<void>;
}

export type StartKubeletServer = (options: KubeletServerOptions) => Promise<KubeletServer>;
