/**
 * k8ts's client library, as one import for people who write controllers and
 * tools in TypeScript (`import { newHttpClient, … } from 'k8ts/client'`).
 * It is the same code the controller manager, the scheduler and the kubelet
 * use: a REST client, informers over a reflector, a work queue, leader
 * election on Leases and an Event recorder. examples/ has a whole controller.
 */
export type {
  Client,
  DeleteOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceClient,
  ResourceRef,
  WatchEvent,
  WatchOptions,
  WatchStream,
  WriteOptions,
} from './rest/interface.js';
export * from './rest/resources.js';
export { loadKubeconfig, restConfigFromKubeconfig, KubeconfigError, type RestConfigOptions } from './rest/kubeconfig.js';
export type { RestConfig } from './rest/rest-config.js';
export { newHttpClient, type HttpClient } from './rest/http-client.js';

export type {
  EventHandler,
  HandlerRegistration,
  IndexFunc,
  Indexer,
  InformerFactory,
  InformerOptions,
  SharedIndexInformer,
} from './cache/interfaces.js';
export { CONTROLLER_UID_INDEX, NAMESPACE_INDEX, objectKey, splitObjectKey } from './cache/interfaces.js';
export { newInformerFactory, type InformerFactoryOptions } from './cache/informer-factory.js';
export { newSharedInformer, type SharedInformerOptions } from './cache/shared-informer.js';
export { newIndexer } from './cache/indexer.js';
export { listerWatcherFor } from './cache/resource-lister-watcher.js';
export { Reflector, type ListerWatcher, type ReflectorOptions } from './cache/reflector.js';

export type { WorkQueue } from './workqueue/interface.js';
export { RateLimitingQueue, type WorkQueueOptions } from './workqueue/rate-limiting-queue.js';
export { BucketRateLimiter, ItemExponentialRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter, type RateLimiter } from './workqueue/rate-limiters.js';

export { LeaderElector, defaultLeaderIdentity, type LeaderCallbacks, type LeaderElectionConfig } from './leader-election/leader-elector.js';

export type { EventRecorder, EventRecorderFactory, EventType } from './record/interface.js';
export { newEventRecorderFactory, type EventRecorderOptions } from './record/event-recorder.js';

export { StatusError, isAlreadyExists, isConflict, isNotFound, isResourceExpired, isTooManyRequests } from '../machinery/status.js';
export type { KubeList, KubeObject, ObjectMeta, OwnerReference } from '../machinery/meta.js';
