import type { Command } from 'commander';

/** One `hermes` command: what the top-level help says, and how to load it when it runs. */
export interface CommandEntry {
  name: string;
  summary: string;
  /** Imports the command's module and registers it (and only it) on `program`. */
  load(program: Command): Promise<void>;
}

/*
 * Every command, loaded only when it is the one that runs: `hermes --help` imports none of
 * them, `hermes exec` imports exec.ts alone. Keep this file free of imports but types.
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'gateway', summary: 'run the chat gateway (every platform that has its tokens, and the local web chat); gateway install: a systemd user unit', load: async (p) => (await import('./commands/gateway.js')).registerGatewayCommand(p) },
  { name: 'chat', summary: 'talk to the agent in this terminal (or pipe lines in: each is one turn)', load: async (p) => (await import('./commands/chat.js')).registerChatCommand(p) },
  { name: 'exec', summary: 'run one Python script through execute_code on the configured terminal backend', load: async (p) => (await import('./commands/exec.js')).registerExecCommand(p) },
  { name: 'setup', summary: 'configure the model and key, the terminal backend and each chat platform (tokens checked, allow-list)', load: async (p) => (await import('./commands/setup.js')).registerSetupCommand(p) },
  { name: 'status', summary: 'the active backend, every backend\'s probe, the model and which platforms have tokens', load: async (p) => (await import('./commands/status.js')).registerStatusCommand(p) },
  { name: 'doctor', summary: 'check the config, the model (a real call), Python, the backends and the platforms; exit 1 on a failed check', load: async (p) => (await import('./commands/doctor.js')).registerDoctorCommand(p) },
  { name: 'config', summary: 'show or change config.yaml', load: async (p) => (await import('./commands/config.js')).registerConfigCommand(p) },
  { name: 'logs', summary: 'show HERMES_HOME/logs/agent.log readably', load: async (p) => (await import('./commands/logs.js')).registerLogsCommand(p) },
  { name: 'pairing', summary: 'approve, list and revoke the pairing codes strangers get in a direct message (dm_policy: pairing)', load: async (p) => (await import('./commands/pairing.js')).registerPairingCommand(p) },
  { name: 'plugins', summary: 'list, enable and disable plugins in HERMES_HOME/plugins', load: async (p) => (await import('./commands/plugins.js')).registerPluginsCommand(p) },
];

/** Options of the top-level program that take a value (so the command name is found after them). */
const VALUE_OPTIONS = new Set(['--home']);

/**
 * The command `argv` (without node and the script) runs, if it names one: the first word
 * that is not an option or an option's value. `help exec` names exec.
 */
export function commandIn(argv: readonly string[]): CommandEntry | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') return undefined;
    if (VALUE_OPTIONS.has(word)) {
      i++;
      continue;
    }
    if (word.startsWith('-')) continue;
    if (word === 'help') return argv[i + 1] === undefined ? undefined : COMMANDS.find((entry) => entry.name === argv[i + 1]);
    return COMMANDS.find((entry) => entry.name === word);
  }
  return undefined;
}
