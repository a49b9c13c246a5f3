/** Redis key names, all under one prefix so several gateways can share a Redis database. */
export interface CoordinationKeys {
  lease(threadKey: string): string;
  fence(threadKey: string): string;
  inbox(instanceId: string): string;
  /** Present while the instance runs (renewed like a lease). */
  alive(instanceId: string): string;
  /** A dead instance's inbox while one instance takes its messages over. */
  adopted(instanceId: string): string;
}

export const DEFAULT_PREFIX = 'hermes:';

export function coordinationKeys(prefix = DEFAULT_PREFIX): CoordinationKeys {
  return {
    lease: (threadKey) => `${prefix}lease:${threadKey}`,
    fence: (threadKey) => `${prefix}fence:${threadKey}`,
    inbox: (instanceId) => `${prefix}inbox:${instanceId}`,
    alive: (instanceId) => `${prefix}alive:${instanceId}`,
    adopted: (instanceId) => `${prefix}adopted:${instanceId}`,
  };
}
