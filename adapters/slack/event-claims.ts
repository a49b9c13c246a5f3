/** Slack's message claims are the shared event claims (src/coordination/event-claims.ts). */
export { redisEventClaims, type EventClaims as SlackEventClaims } from '../../src/coordination/event-claims.js';
