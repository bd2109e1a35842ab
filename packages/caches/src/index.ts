export {
  type ChangeLog,
  createChangeLog,
  INVALIDATION_CHANNEL,
  INVALIDATION_LISTENER_NAME,
  type Invalidation,
} from './invalidation.ts';
export { type CatchUp, type InvalidationListener, listenForInvalidations } from './invalidationListener.ts';
export { clearCaches, evict, type NodeCaches, namespaceCacheKey, overrideCacheKey, settle } from './nodeCaches.ts';
