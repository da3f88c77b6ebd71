/**
 * The API server: the cluster's single gateway and the only code that touches
 * storage. It wires the store, the registry of resources, the request pipeline
 * (server/chain.ts) and the HTTPS listener, and shuts down gracefully: it stops
 * accepting, ends watches cleanly, and lets requests in flight finish.
 */
import { setMaxListeners } from 'node:events';
import { newBuiltinScheme } from '../api/resources.js';
import type { Logger } from '../machinery/logger.js';
import type { Storage } from '../storage/interface.js';
import type { KubeletClientConfig } from './kubelet/kubelet-client.js';
import type { Auditor } from './audit/auditor.js';
import { prepareAuthentication, type AuthenticationConfig } from './auth/authenticators/build.js';
import { newAdmissionChain } from './admission/chain.js';
import { ADMISSION_PLUGINS, selectAdmissionPlugins, type PluginSelection } from './admission/plugins/registry.js';
import { registryLookup } from './endpoints/installer.js';
import { bootstrap } from './bootstrap.js';
import { newAuthorizationPipeline } from './auth/authorization-pipeline.js';
import { EscalationGuard } from './auth/authorizers/rbac/escalation.js';
import type { AuthorizationMode } from './auth/authorizers/modes.js';
import type { WebhookAuthorizerFlags } from './auth/authorizers/webhook/webhook-authorizer.js';
import { newResourceHandler } from './endpoints/installer.js';
import { newNonResourceHandler } from './endpoints/non-resource.js';
import { newOpenApiV2Handler, newOpenApiV3Handler } from './endpoints/openapi.js';
import type { WatchSettings } from './endpoints/watch.js';
import { newApiServerMetrics } from './metrics/api-server-metrics.js';
import { newInstrumentedStorage } from './metrics/instrumented-storage.js';
import { newMetricsHandler } from './metrics/metrics-handler.js';
import { newStorageTypeResolver, storedResources } from './metrics/storage-types.js';
import { authenticationHandlers } from './registry/authentication/handlers.js';
import { AUTHORIZATION_GROUP } from './registry/authorization/reviews.js';
import { builtinDefinitions } from './registry/builtin.js';
import type { ComponentStatusOptions } from './registry/core/componentstatus/components.js';
import { ObjectStorage } from './registry/generic/object-storage.js';
import { Registry } from './registry/registry.js';
import { buildHandlerChain } from './server/chain.js';
import type { Handler, RequestContext } from './server/context.js';
import type { Socket } from 'node:net';
import { listen, type Listener, type ListenerOptions } from './server/listener.js';

export interface ApiServerConfig {
  readonly storage: Storage;
  /** `--etcd-prefix` (default /registry). */
  readonly storagePrefix: string;
  readonly tls: { readonly cert: string; readonly key: string; readonly clientCA: string };
  readonly bindAddress: string;
  readonly securePort: number;
  /** Where connections come from when several processes share the port (`--workers`); default: the port. */
  readonly connections?: ListenerOptions['connections'];
  /** The address other components and the `kubernetes` Service use to reach this server. */
  readonly advertiseAddress: string;
  /** The first IP of `--service-cluster-ip-range`. */
  readonly kubernetesServiceIP: string;
  /** `--service-cluster-ip-range`: where Service clusterIPs come from (default 127.96.0.0/12). */
  readonly serviceClusterIPRange?: string;
  /** `--service-node-port-range` (default 30000-32767). */
  readonly serviceNodePortRange?: string;
  readonly log: Logger;
  readonly watch?: WatchSettings;
  /** Authentication flags (auth/authenticators/build.ts); default: client certificates, anonymous to health and version. */
  readonly authentication?: AuthenticationConfig;
  /** `--authorization-mode`, parsed (default AlwaysAllow, as upstream's kube-apiserver). */
  readonly authorizationModes?: readonly AuthorizationMode[];
  /** --authorization-webhook-* flags; needed when Webhook is among the modes. */
  readonly authorizationWebhook?: WebhookAuthorizerFlags;
  /** --enable-admission-plugins / --disable-admission-plugins (upstream's defaults otherwise). */
  readonly admission?: PluginSelection;
  /** Audit policy and log (--audit-policy-file, --audit-log-path); none: no auditing. */
  readonly auditor?: Auditor;
  /** --kubelet-client-certificate, --kubelet-client-key, --kubelet-certificate-authority (PEM contents). */
  readonly kubeletClient?: KubeletClientConfig;
  /** Where ComponentStatus probes the scheduler, the controller manager and etcd (the embedded store: its /readyz check). */
  readonly componentStatuses?: Omit<ComponentStatusOptions, 'storageCheck'>;
}

export interface RunningApiServer {
  readonly port: number;
  readonly registry: Registry;
  /** Serve a connection another process accepted (a `--workers` worker's share). */
  accept(socket: Socket): void;
  /** Graceful shutdown: stop accepting, end watches, wait (up to the deadline) for requests in flight. */
  close(deadlineMs?: number): Promise<void>;
}

export async function startApiServer(config: ApiServerConfig): Promise<RunningApiServer> {
  const scheme = newBuiltinScheme();
  const metrics = newApiServerMetrics();
  const authentication = prepareAuthentication(config.authentication, (message) => config.log.warn(message));
  const escalation = new EscalationGuard();
  const storageCheck = { name: 'etcd', check: async () => void (await config.storage.currentRevision()) };
  const definitions = builtinDefinitions({
    services: { clusterIPRange: config.serviceClusterIPRange, nodePortRange: config.serviceNodePortRange },
    escalation,
    componentStatuses: { ...config.componentStatuses, storageCheck: storageCheck.check },
    ...(config.kubeletClient !== undefined ? { kubeletClient: config.kubeletClient } : {}),
    ...(authentication.serviceAccountTokens !== undefined ? { serviceAccountTokens: authentication.serviceAccountTokens } : {}),
  });
  const storageTypeOf = newStorageTypeResolver(config.storagePrefix, storedResources(scheme, definitions));
  const admissionPlugins = selectAdmissionPlugins(config.admission ?? {});
  const registry = new Registry({
    scheme,
    namespaceLifecycle: admissionPlugins.includes('NamespaceLifecycle'),
    storage: new ObjectStorage(newInstrumentedStorage(config.storage, metrics.storage, storageTypeOf)),
    prefix: config.storagePrefix,
    definitions,
    // The watch cache sends the periodic bookmarks of the watches it serves, at the same period.
    watchCache: {
      ...(config.watch !== undefined ? { bookmarkIntervalMs: config.watch.bookmarkIntervalMs } : {}),
      onError: (message, error) => config.log.warn({ err: error }, message),
    },
  });
  await bootstrap({
    registry,
    kubernetesServiceIP: config.kubernetesServiceIP,
    advertiseAddress: config.advertiseAddress,
    securePort: config.securePort,
  });
  const onlyAlwaysAllow = (config.authorizationModes ?? ['AlwaysAllow']).every((m) => m === 'AlwaysAllow');
  const authorization = await newAuthorizationPipeline({
    registry,
    escalation,
    modes: config.authorizationModes ?? ['AlwaysAllow'],
    ...(config.authorizationWebhook !== undefined ? { webhook: config.authorizationWebhook } : {}),
    onError: (message, error) => config.log.warn({ err: error }, message),
  });

  const stopAdmission = new AbortController();
  // Every admission plugin's watches listen to it (more than Node's default warning threshold of 10).
  setMaxListeners(0, stopAdmission.signal);
  const admission = newAdmissionChain(
    admissionPlugins.map((name) => ADMISSION_PLUGINS[name]!({ stores: registryLookup(registry), authorizer: authorization.authorizer, signal: stopAdmission.signal })),
  );
  config.log.info({ plugins: admission.names }, 'admission plugins');

  let shuttingDown = false;
  let listener: Listener | undefined;
  const openapiV3 = newOpenApiV3Handler(scheme);
  const nonResource = newNonResourceHandler({
    scheme,
    routes: new Map([
      ['/openapi/v3', openapiV3],
      ['/openapi/v3/', openapiV3],
      ['/openapi/v2', newOpenApiV2Handler(scheme)],
      ['/metrics', newMetricsHandler(metrics.registry)],
    ]),
    serverAddress: () => `${config.advertiseAddress}:${listener?.port ?? config.securePort}`,
    livez: [{ name: 'ping', check: async () => {} }, storageCheck],
    readyz: [
      { name: 'ping', check: async () => {} },
      storageCheck,
      {
        name: 'shutdown',
        check: async () => {
          if (shuttingDown) throw new Error('process is shutting down');
        },
      },
    ],
  });
  const authenticator = authentication.build(registry);
  const resources = newResourceHandler({
    registry,
    admission,
    createOnly: authenticationHandlers({ tokens: authenticator.tokens }),
    ...(config.watch !== undefined ? { watch: config.watch } : {}),
  });
  const route: Handler = (ctx) => {
    if (!ctx.info.isResourceRequest || ctx.info.resource === '') return nonResource(ctx);
    return ctx.info.apiGroup === AUTHORIZATION_GROUP ? authorization.reviews(ctx) : resources(ctx);
  };
  const log = (message: string, detail: Record<string, unknown>): void => config.log.error(detail, message);
  const chain = buildHandlerChain(route, {
    log,
    metrics: metrics.requests,
    // With AlwaysAllow alone no authorizer guards anything: anonymous requests reach only the public health and version paths
    // (upstream turns anonymous access off in that case). Otherwise the authorizer decides what anonymous users may do.
    authentication: { authenticator, anonymousPublicPathsOnly: config.authentication?.anonymousPublicPathsOnly ?? onlyAlwaysAllow },
    authorizer: authorization.authorizer,
    ...(config.auditor !== undefined ? { auditor: config.auditor } : {}),
  });

  // Requests in flight, so that shutdown can end watches and wait for the rest.
  const inFlight = new Set<RequestContext>();
  const tracked: Handler = (ctx) => {
    inFlight.add(ctx);
    const done = (): void => {
      inFlight.delete(ctx);
    };
    // `on`, not `once`: `done` may run twice harmlessly, and the response is dropped with its listeners.
    ctx.res.on('close', done);
    ctx.res.on('finish', done);
    return chain(ctx);
  };
  listener = await listen(
    {
      cert: config.tls.cert,
      key: config.tls.key,
      clientCA: config.tls.clientCA,
      host: config.bindAddress,
      port: config.securePort,
      ...(config.connections !== undefined ? { connections: config.connections } : {}),
    },
    tracked,
  );
  config.log.info({ port: listener.port }, 'serving securely');
  const running = listener;

  return {
    port: running.port,
    accept: (socket) => running.accept(socket),
    registry,
    close: async (deadlineMs = 10_000) => {
      shuttingDown = true;
      const closed = running.close();
      for (const ctx of inFlight) {
        if (ctx.info.verb === 'watch' && !ctx.res.writableEnded) ctx.res.end();
      }
      const deadline = Date.now() + deadlineMs;
      while (inFlight.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      authorization.stop();
      stopAdmission.abort();
      registry.stop();
      running.closeConnections();
      await closed;
    },
  };
}
