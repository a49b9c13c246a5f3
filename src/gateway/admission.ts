import type { HermesConfig } from '../config/index.js';
import type { PairingStore, RequestOutcome } from '../pairing/index.js';
import type { Logger } from '../shared/logger.js';
import type { AccessPolicy } from './access.js';
import { GroupPolicy } from './group-policy.js';
import { peopleSettings } from './people-settings.js';
import type { InboundMessage } from './types.js';

/** A stranger waiting with a code is reminded of it at most this often, however much they write. */
const REMINDER_MS = 10 * 60_000;

export interface AdmissionOptions {
  config: HermesConfig;
  access: AccessPolicy;
  pairing: PairingStore;
  logger: Logger;
  now: () => number;
}

/**
 * What happens to a message before any command or turn: the group policy (addressed? which
 * session?), then who sent it (allowed, a stranger to give a pairing code, refused). Nothing
 * refused here reaches the model; what it says goes through `say`.
 */
export class Admission {
  private readonly groups: GroupPolicy;
  /** When each waiting stranger was last told their code (or that too many wait). */
  private readonly told = new Map<string, number>();

  constructor(private readonly options: AdmissionOptions) {
    this.groups = new GroupPolicy(options.now);
  }

  /** The message to handle (its thread key may be a person's own in a group thread), or undefined when it is dropped. */
  admit(message: InboundMessage, say: (text: string) => void): InboundMessage | undefined {
    const { config, access, logger } = this.options;
    const log = { platform: message.platform, user: message.user.id, thread: message.threadKey };
    const verdict = this.groups.judge(message, peopleSettings(config, message.platform));
    if (verdict.kind === 'ignore') {
      logger.debug({ ...log, reason: verdict.reason }, 'message ignored');
      return undefined;
    }
    if (verdict.kind === 'pause') {
      logger.warn(log, 'too many bot messages in a thread: paused');
      say(verdict.notice);
      return undefined;
    }
    const admission = access.admit(verdict.message);
    if (admission.kind === 'allowed') return verdict.message;
    if (admission.kind === 'pairing') {
      this.pair(message, say);
      return undefined;
    }
    logger.warn(log, 'refused a message from a user who is not allowed');
    if (access.firstRefusal(message.platform, message.user.id)) say(access.refusalText(message.platform, message.user.id));
    return undefined;
  }

  /** A stranger's DM under `dm_policy: pairing`: their code (new, or a reminder now and then), never the model. */
  private pair(message: InboundMessage, say: (text: string) => void): void {
    const { pairing, logger, now } = this.options;
    const outcome = pairing.request(message.platform, message.user);
    const key = `${message.platform}:${message.user.id}`;
    logger.info({ platform: message.platform, user: message.user.id, outcome: outcome.kind }, 'pairing: a stranger wrote');
    const last = this.told.get(key);
    if (outcome.kind !== 'issued' && last !== undefined && now() - last < REMINDER_MS) return;
    this.told.set(key, now());
    say(pairingText(message.platform, outcome, pairing.limits.maxWaiting, now()));
  }
}

/** What a stranger is told: their code and how the owner lets them in, or that too many wait. */
export function pairingText(platform: string, outcome: RequestOutcome, maxWaiting: number, now: number): string {
  if (outcome.kind === 'full') {
    return `This bot is private, and ${maxWaiting} people are already waiting for its owner to let them in. Try again later.`;
  }
  const minutes = Math.max(1, Math.round((outcome.expiresAt - now) / 60_000));
  return (
    `This bot is private. Your pairing code is ${outcome.code}` +
    `${outcome.kind === 'issued' ? ' (valid for one hour)' : ` (still waiting; valid for about ${minutes} more minutes)`}. ` +
    `Send it to the bot's owner: they let you in with \`hermes pairing approve ${platform} ${outcome.code}\`, ` +
    'from the web chat\'s settings, or an admin with /pair approve <code> in a chat with the bot.'
  );
}
