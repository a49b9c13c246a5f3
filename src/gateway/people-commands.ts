import { roleOf, type HermesConfig, type Role } from '../config/index.js';
import type { PairingStore } from '../pairing/index.js';
import type { AccessPolicy } from './access.js';
import type { CommandName } from './commands.js';
import type { InboundMessage } from './types.js';

/** What each admin-only command does, for the refusal. */
const ADMIN_ONLY: Partial<Record<CommandName, string>> = {
  model: 'change the model (/model <name>)',
  reload_mcp: 'reload the MCP servers (/reload-mcp)',
  sethome: 'move the home channel (/sethome)',
  pair: 'approve pairing codes (/pair)',
};

const PAIR_USAGE = '/pair approve <code>, /pair list, or /pair revoke <user id or code>';

/** /whoami, /pair, and the admins' gate in front of /model <name>, /reload-mcp, /sethome and /pair. */
export class PeopleCommands {
  constructor(
    private readonly config: HermesConfig,
    private readonly access: AccessPolicy,
    private readonly pairing: PairingStore,
  ) {}

  role(message: InboundMessage): Role {
    return roleOf(this.config, message.platform, message.user.id, this.access.isAllowListed(message.platform, message.user.id));
  }

  /** Why `message`'s sender may not run `name`, or undefined when they may (/model without a name only shows it). */
  refusal(name: CommandName, args: string, message: InboundMessage): string | undefined {
    const what = ADMIN_ONLY[name];
    if (!what || (name === 'model' && !args.trim())) return undefined;
    if (this.role(message) === 'admin') return undefined;
    return (
      `Only an admin can ${what}. Your ${message.platform} user id is ${message.user.id} and your role is user; ` +
      `the admins are listed in platforms.${message.platform}.admins in config.yaml.`
    );
  }

  /** The /whoami reply: id, platform and role. */
  whoami(message: InboundMessage): string {
    const name = message.user.name ? `${message.user.name}, ` : '';
    return `You are ${name}user id ${message.user.id} on ${message.platform}; your role is ${this.role(message)}.`;
  }

  /** `/pair approve <code>`, `/pair list`, `/pair revoke <who>` for the message's platform (the gate checked the admin). */
  pair(args: string, message: InboundMessage): string {
    const [verb, value, ...rest] = args.trim().split(/\s+/).filter(Boolean);
    const platform = message.platform;
    if (verb === 'approve' && value && rest.length === 0) {
      const outcome = this.pairing.approve(platform, value, `${platform}:${message.user.id}`);
      if (outcome.kind === 'approved') return `Approved: ${outcome.userName || 'user'} (id ${outcome.userId}) may talk to the bot now.`;
      if (outcome.kind === 'locked') return `Too many wrong codes: approvals on ${platform} are refused until ${new Date(outcome.retryAt).toISOString()}.`;
      return 'No such code is waiting. Check the code (it lives one hour) and try again.';
    }
    if (verb === 'list' && !value) return pairingList(this.pairing, platform);
    if (verb === 'revoke' && value && rest.length === 0) {
      return this.pairing.revoke(platform, value) ? `Revoked ${value}: it has no access from pairing any more.` : `Nothing to revoke: ${value} is neither paired nor waiting.`;
    }
    return `Use ${PAIR_USAGE}.`;
  }
}

/** The waiting codes and the paired people of a platform (or all), one a line. */
export function pairingList(pairing: PairingStore, platform?: string): string {
  const waiting = pairing.pending(platform);
  const paired = pairing.paired(platform);
  const lines = [waiting.length === 0 ? 'Waiting: none' : 'Waiting:'];
  for (const request of waiting) {
    lines.push(`  ${request.platform} ${request.code}  ${request.userName || '?'} (id ${request.userId}), until ${new Date(request.expiresAt).toISOString()}`);
  }
  lines.push(paired.length === 0 ? 'Paired: none' : 'Paired:');
  for (const person of paired) {
    lines.push(`  ${person.platform} ${person.userId}  ${person.userName || '?'}, approved ${new Date(person.approvedAt).toISOString()} by ${person.approvedBy}`);
  }
  return lines.join('\n');
}
