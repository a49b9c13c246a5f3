#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { packageRoot } from '../shared/package-root.js';
import { COMMANDS, commandIn } from './command-table.js';
/*
 * Only the command that runs is imported (command-table.ts): `--help` and `--version` load
 * commander and nothing else, `exec` loads exec.ts and what it needs. Command files keep their
 * top-level imports light and load heavy modules inside their actions.
 */
function version(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

const program = new Command('hermes')
  .description('hermes-gateway: one AI agent that writes and runs code, from Slack, Discord, Telegram and a local web chat')
  .version(version(), '-V, --version', 'print the version')
  .option('--home <dir>', 'HERMES_HOME (default: $HERMES_HOME or ~/.hermes)')
  .showHelpAfterError();

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const chosen = commandIn(argv);
  if (chosen) await chosen.load(program);
  // Help, --version and unknown commands: every command as a name and a line, none loaded.
  else for (const entry of COMMANDS) program.command(entry.name).description(entry.summary);
  await program.parseAsync(process.argv);
}

main().catch((error: unknown) => {
  console.error(`hermes: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
