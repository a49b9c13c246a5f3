import type { GatewayThreadRouter } from './gateway.js';

/**
 * The thread router of a gateway that runs alone (src/coordination's in-process coordination):
 * every thread is this instance's, nothing is passed on, no kernel moves. `claim` answers at
 * once (not a promise) so a message reaches its lane in the same tick as with no router at all.
 */
export const ONE_INSTANCE: GatewayThreadRouter = {
  claim: () => true,
  idle: () => {},
  take: async () => true,
  done: () => {},
  kernelMoved: async () => false,
  kernelHere: () => {},
  kernelReset: () => {},
  sending: async () => () => {},
};
