import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { builtCli } from '../helpers/hermes-process.js';

/** Variables of this machine that would change what setup and doctor see; the child gets none of them. */
const DROPPED = /^(HERMES_|TELEGRAM_|SLACK_|DISCORD_|GATEWAY_ALLOW_ALL_USERS$|OPENAI_|OPENROUTER_|OLLAMA_|MODEL_API_KEY$)/;

export interface CliProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `hermes --home home ...args` as a real process in `home`, with an environment
 * of this process's minus every HERMES_*, platform and model key variable, plus `env`.
 */
export function runHermes(home: string, args: string[], env: Record<string, string> = {}): Promise<CliProcessRun> {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run \`npm run build\` (npm test does) first`);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !DROPPED.test(name)));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli, '--home', home, ...args], { cwd: home, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
