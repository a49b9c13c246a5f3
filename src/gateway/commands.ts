/** The chat commands the gateway answers itself. */
export const COMMANDS = [
  { name: 'new', description: 'start a new session (stops the running turn)' },
  { name: 'stop', description: 'stop the running turn' },
  { name: 'status', description: 'model, backend, session and kernel state' },
  { name: 'help', description: 'what the bot can do' },
  { name: 'approve', description: 'allow the waiting request once; "session" until /new, "always" as a rule' },
  { name: 'deny', description: 'refuse the request waiting for approval' },
  { name: 'retry', description: 'run the last message again (after an error, a restart, or for another answer)' },
  { name: 'undo', description: 'drop the last turn from what the agent sees (state.db keeps it)' },
  { name: 'usage', description: 'tokens of the last turn and the session, the context size, the cost' },
  { name: 'model', description: 'the model of this thread; /model <name> picks another, /model default goes back' },
  { name: 'compress', description: 'compact this session now (old outputs pruned, older turns summarised)' },
  { name: 'verbose', description: 'tool progress in this thread: off, new or all (no argument: the next one)' },
  { name: 'cron', description: 'scheduled jobs of this thread: list, pause <id>, resume <id>, remove <id>, run <id>, stop <id>' },
  { name: 'sethome', description: "admins: make this chat the platform's home channel, where new scheduled jobs deliver" },
  { name: 'memory', description: 'what I noted about you (in a direct message); /memory forget clears it' },
  { name: 'skills', description: 'the skills I have, one line each (I write them with skill_manage)' },
  { name: 'voice', description: 'answers as voice notes in this thread: on (also), only, or off' },
  { name: 'whoami', description: 'your user id, the platform and your role (admin or user)' },
  { name: 'pair', description: 'admins: approve <code> lets a stranger in who got a pairing code; list; revoke <user id>' },
  { name: 'reload_mcp', description: 'read mcp_servers from config.yaml again: start, restart or stop MCP servers (also /reload-mcp)' },
] as const;

export type CommandName = (typeof COMMANDS)[number]['name'];

const ALIASES: Record<string, CommandName> = { start: 'help', reset: 'new', cancel: 'stop', 'reload-mcp': 'reload_mcp' };

/**
 * The chat command in `text` (`/new`, `/stop@my_bot`, `/approve`, or the same with `!`:
 * `!stop`, which Slack threads pass on where they keep `/` words for their own slash
 * commands), or undefined for an ordinary message. Unknown words are ordinary messages.
 */
export function parseCommand(text: string): { name: CommandName; args: string } | undefined {
  const match = /^[/!]([A-Za-z_]+(?:-[A-Za-z_]+)*)(?:@\S+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const word = match[1].toLowerCase();
  const name = (COMMANDS.find((command) => command.name === word)?.name ?? ALIASES[word]) as CommandName | undefined;
  return name ? { name, args: (match[2] ?? '').trim() } : undefined;
}

/** The `/help` reply. */
export function helpText(): string {
  return [
    'I am an AI agent that can write and run code for you. Just send a message.',
    'A new message while I am working interrupts me and I answer the new one.',
    '',
    ...COMMANDS.map((command) => `/${command.name} — ${command.description}`),
    '',
    'Each command also works with ! instead of / (!stop, !new), for Slack threads.',
  ].join('\n');
}

/** "3 min", "2 h 5 min", "40 s": how long ago `since` was. */
export function formatAge(since: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - since) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d`;
}
