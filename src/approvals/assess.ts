import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseCommands } from './shell-parse.js';
import { FLOOR_RULES, RISKY_RULES, forkBomb, riskyText } from './rules.js';
import type { PathContext } from './paths.js';

/** What a command is, for the approvals policy. */
export type Assessment =
  | { level: 'blocked'; reason: string }
  | { level: 'risky'; reason: string }
  | { level: 'safe' };

/** `~` and HERMES_HOME as the checks should see them; defaults to this process's. */
export function pathContext(options: Partial<PathContext> = {}): PathContext {
  const home = options.home ?? homedir();
  return { home, hermesHome: options.hermesHome ?? process.env.HERMES_HOME ?? join(home, '.hermes') };
}

/**
 * Judges a shell command: `blocked` when it is on the floor (recursive delete of the
 * system or home, mkfs, dd to a disk, fork bomb, shutdown…), `risky` when it needs the
 * user's approval (git reset --hard, chmod 777, curl | sh, writing ~/.ssh or
 * HERMES_HOME/.env…), else `safe`. Every simple command in chains, pipelines,
 * substitutions and `bash -c` strings is checked; the floor wins over risky.
 */
export function assessCommand(command: string, options: Partial<PathContext> = {}): Assessment {
  const ctx = pathContext(options);
  const bomb = forkBomb(command);
  if (bomb) return { level: 'blocked', reason: bomb };
  const commands = parseCommands(command);
  for (const simple of commands) {
    for (const rule of FLOOR_RULES) {
      const reason = rule(simple, ctx);
      if (reason) return { level: 'blocked', reason };
    }
  }
  for (const simple of commands) {
    for (const rule of RISKY_RULES) {
      const reason = rule(simple, ctx);
      if (reason) return { level: 'risky', reason };
    }
  }
  const text = riskyText(command);
  return text ? { level: 'risky', reason: text } : { level: 'safe' };
}
