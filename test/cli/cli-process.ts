import { hermes, type ProcessRun } from '../helpers/hermes-process.js';

/** Variables of this machine that would change what setup and doctor see; the child gets none of them. */
const DROPPED = /^(HERMES_|TELEGRAM_|SLACK_|DISCORD_|GATEWAY_ALLOW_ALL_USERS$|OPENAI_|OPENROUTER_|OLLAMA_|MODEL_API_KEY$)/;

export type CliProcessRun = ProcessRun;

/**
 * Runs the built `hermes --home home ...args` as a real process in `home`, with an environment
 * of this process's minus every HERMES_*, platform and model key variable, plus `env`.
 */
export function runHermes(home: string, args: string[], env: Record<string, string> = {}): Promise<CliProcessRun> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !DROPPED.test(name)));
  return hermes(home, args, { baseEnv: clean, env });
}
