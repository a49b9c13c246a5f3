/** Slack's message claims are the shared event claims (src/coordination/event-claims.ts). */
export type { EventClaims as SlackEventClaims } from '../../src/coordination/index.js';
