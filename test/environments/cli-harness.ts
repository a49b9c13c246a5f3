import { vi } from 'vitest';
import { Command } from 'commander';
import { registerConfigCommand } from '../../src/cli/commands/config.js';
import { registerSetupCommand } from '../../src/cli/commands/setup.js';
import { registerStatusCommand } from '../../src/cli/commands/status.js';
import { registerDoctorCommand } from '../../src/cli/commands/doctor.js';
import { registerPluginsCommand } from '../../src/cli/commands/plugins.js';

export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The message of the error the command threw (what `hermes:` would print). */
  error?: string;
}

/**
 * Runs `hermes --home <home> ...args` in this process with the real command modules,
 * the way src/cli/main.ts wires them, capturing what they print.
 */
export async function runCli(home: string, ...args: string[]): Promise<CliRun> {
  const program = new Command('hermes').option('--home <dir>').exitOverride();
  registerConfigCommand(program);
  registerSetupCommand(program);
  registerStatusCommand(program);
  registerDoctorCommand(program);
  registerPluginsCommand(program);
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void out.push(parts.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void err.push(parts.join(' ')));
  const previous = process.exitCode;
  process.exitCode = undefined;
  let message: string | undefined;
  try {
    await program.parseAsync(['node', 'hermes', '--home', home, ...args]);
  } catch (thrown) {
    message = thrown instanceof Error ? thrown.message : String(thrown);
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
  const exitCode = message !== undefined ? 1 : Number(process.exitCode ?? 0);
  process.exitCode = previous;
  return { stdout: out.join('\n'), stderr: err.join('\n'), exitCode, error: message };
}
