/**
 * The reflector's ListerWatcher over a ResourceClient. One implementation
 * exists, in client/cache/resource-lister-watcher.ts (the informer factory
 * landed it first); this module keeps the name the REST client's brief gave
 * it, so both imports reach the same code.
 *
 * @example
 *   const reflector = new Reflector(listerWatcherFor(client.resource(PODS), { namespace: 'default' }), store);
 */
export { listerWatcherFor, type ListerWatcherOptions } from '../cache/resource-lister-watcher.js';
