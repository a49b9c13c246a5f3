export { RedisCoordinator, type CoordinatorHandlers, type InterruptRoute, type RedisCoordinatorOptions } from './coordinator.js';
export { RedisThreadLeases } from './leases.js';
export { LeaseKeeper } from './lease-keeper.js';
export { passTo, Inbox } from './inbox.js';
export { coordinationKeys, DEFAULT_PREFIX, type CoordinationKeys } from './keys.js';
export { redisUrlFrom } from './redis-url.js';
export type { PassedEnvelope, ThreadLease } from './types.js';
export { ThreadRouter, type RoutedGateway } from './thread-router.js';
export { startGatewayCoordination, type GatewayCoordination } from './gateway-coordination.js';
