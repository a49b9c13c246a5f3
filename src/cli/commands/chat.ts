import type { Command } from 'commander';
import { createInterface } from 'node:readline';
import { userInfo } from 'node:os';
import type { Interface } from 'node:readline';
import type { AgentEvent, AgentRunner, ApprovalRequest, TurnResult } from '../../agent/index.js';
import type { SettingsEnv } from '../../config/index.js';
import { loadForCli } from '../common.js';
import { terminalText } from '../terminal-text.js';
import { usageText } from '../../gateway/session-commands.js';
import { InterruptReason } from '../../shared/notices.js';

interface ChatOptions {
  user?: string;
}


export function registerChatCommand(program: Command): void {
  program
    .command('chat')
    .description('talk to the agent in this terminal (or pipe lines in: each is one turn)')
    .option('--user <name>', 'who is talking; the session is console:<user>')
    .action(async (options: ChatOptions, command: Command) => {
      const loaded = loadForCli(command);
      const [{ createAgent }, { createLogger }] = await Promise.all([import('../../agent/index.js'), import('../../shared/logger.js')]);
      const logger = createLogger({ file: loaded.paths.logFile, level: loaded.config.logging.level, env: loaded.env });
      const agent = await createAgent(loaded, { logger });
      const user = options.user || safeUserName(loaded.env);
      try {
        await chatLoop(agent, {
          sessionKey: `console:${user}`,
          user,
          interactive: Boolean(process.stdin.isTTY),
          toolProgress: loaded.config.display.tool_progress,
          approvalTimeoutMs: loaded.config.approvals.timeout * 1000,
        });
      } finally {
        await agent.close();
        logger.flush();
      }
    });
}

function safeUserName(env: SettingsEnv): string {
  try {
    return userInfo().username || 'user';
  } catch {
    return env.USER || 'user';
  }
}

function preview(value: unknown, max = 80): string {
  const text = terminalText(typeof value === 'string' ? value : JSON.stringify(value) ?? '');
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One line per tool start and finish, on stderr, so stdout carries only the answers. */
function renderEvent(event: AgentEvent, toolProgress: 'off' | 'new' | 'all'): void {
  if (event.type === 'text') {
    if (!event.final) process.stdout.write(`${terminalText(event.text).trim()}\n`);
    return;
  }
  if (toolProgress === 'off' || event.type === 'text_delta' || event.type === 'tool_output') return;
  if (event.type === 'tool_started') {
    process.stderr.write(`  ⚙ ${event.name} ${preview(event.args)}\n`);
  } else if (toolProgress === 'all' || isError(event.result)) {
    const seconds = (event.durationMs / 1000).toFixed(1);
    const error = isError(event.result) ? `: ${preview((event.result as { error: string }).error, 120)}` : '';
    process.stderr.write(`  ${error ? '✗' : '✓'} ${event.name} (${seconds}s)${error}\n`);
  }
}

function isError(result: unknown): boolean {
  return typeof result === 'object' && result !== null && typeof (result as { error?: unknown }).error === 'string';
}

/**
 * Asks on the terminal whether a risky command may run; no answer in time, or Ctrl-C on the
 * turn, denies. Piped input has nobody to ask, so it denies and says why.
 */
async function askApproval(
  rl: Interface,
  request: ApprovalRequest,
  options: { interactive: boolean; timeoutMs: number; turn: AbortSignal },
): Promise<boolean> {
  if (!options.interactive) {
    process.stderr.write(`  ✗ not run without approval (${request.reason}): ${request.command}\n`);
    return false;
  }
  const signal = AbortSignal.any([options.turn, AbortSignal.timeout(options.timeoutMs)]);
  const question = `\nThe agent wants to run:\n  ${request.command}\n(${request.reason}) Allow it? [y/N] `;
  const answer = await new Promise<string>((resolve) => {
    signal.addEventListener('abort', () => resolve(''), { once: true });
    rl.question(question, { signal }, resolve);
  });
  const approved = /^y(es)?$/i.test(answer.trim());
  if (!answer && signal.aborted) process.stderr.write('\n(no answer: denied)\n');
  return approved;
}

const CHAT_HELP = [
  'Type a message to talk to the agent; Ctrl-C interrupts a turn.',
  '/new — start a new session (the old one stays in state.db)',
  '/status — model, backend, session and kernel',
  '/usage — tokens of the last turn and the session, the context size',
  '/undo — drop the last turn from what the agent sees',
  '/retry — run the last message again',
  '/compress — compact this session now',
  '/exit — quit',
].join('\n');

/**
 * The chat's own commands: the text to print, `retry` with the message to run again, or
 * undefined for a line that goes to the model (unknown slash words do).
 */
async function localCommand(agent: AgentRunner, line: string, options: { sessionKey: string }): Promise<string | undefined> {
  const [word] = line.slice(1).split(/\s+/);
  const key = options.sessionKey;
  switch (word.toLowerCase()) {
    case 'help':
      return CHAT_HELP;
    case 'status': {
      const { model, backend } = agent.describe();
      const info = agent.sessionInfo(key);
      const chosen = agent.threadSettings?.(key).model;
      return [
        `Model: ${chosen || model || '(none configured: set model.name)'}`,
        `Backend: ${backend}`,
        info ? `Session: ${info.sessionId}, ${info.messageCount} messages` : 'Session: none yet (your next message starts one)',
        `Kernel: ${info?.kernel ?? 'none'}`,
      ].join('\n');
    }
    case 'new':
      await agent.newSession(key);
      return 'Started a new session.';
    case 'usage':
      return agent.usage ? usageText(await agent.usage(key), true) : 'This agent does not count usage.';
    case 'undo': {
      const undone = await agent.undo?.(key);
      return undone ? `Dropped the last turn ("${terminalText(undone.text).slice(0, 60)}") from what the agent sees.` : 'Nothing to undo.';
    }
    case 'compress':
      return agent.compress ? terminalText((await agent.compress(key)).text) : 'This agent cannot compress its sessions.';
    default:
      return undefined;
  }
}

/**
 * The console chat: lines become turns one at a time. Ctrl-C during a turn interrupts it;
 * at the prompt (or a second time while stopping) it exits. End of input exits after the
 * last turn, so `printf 'question\n' | hermes chat` answers and exits.
 */
export async function chatLoop(
  agent: AgentRunner,
  options: {
    sessionKey: string;
    user: string;
    interactive: boolean;
    toolProgress: 'off' | 'new' | 'all';
    approvalTimeoutMs?: number;
  },
): Promise<void> {
  const rl = createInterface({
    input: process.stdin,
    output: options.interactive ? process.stdout : undefined,
    terminal: options.interactive,
  });
  let running: AbortController | undefined;
  let closing = false;
  const onInterrupt = () => {
    if (running && !running.signal.aborted) {
      process.stderr.write(`\n(${InterruptReason.ctrlC}; stopping the turn…)\n`);
      running.abort(InterruptReason.ctrlC);
    } else if (running) {
      process.exit(130); // a second Ctrl-C while the turn winds down
    } else {
      closing = true;
      rl.close();
    }
  };
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);

  if (options.interactive) {
    const { model, backend } = agent.describe();
    process.stdout.write(
      `hermes chat — model ${model || '(none: set model.name)'}, backend ${backend}. ` +
        '/new starts over, /help lists the commands, /exit quits, Ctrl-C interrupts a turn.\n',
    );
    rl.setPrompt('you> ');
    rl.prompt();
  }
  let last: TurnResult | undefined;
  try {
    for await (const raw of rl) {
      if (closing) break;
      const line = raw.trim();
      if (line === '/exit' || line === '/quit') break;
      let input: string | undefined = line;
      if (/^\/retry$/i.test(line)) {
        // The last turn leaves what the model sees, and its message runs again.
        input = (await agent.undo?.(options.sessionKey))?.text;
        if (!input) process.stdout.write('Nothing to retry.\n');
      } else if (line.startsWith('/')) {
        const reply = await localCommand(agent, line, options);
        if (reply !== undefined) {
          process.stdout.write(`${reply}\n`);
          input = undefined;
        }
      }
      if (input) {
        const turn = (running = new AbortController());
        last = await agent.runTurn({
          sessionKey: options.sessionKey,
          text: input,
          signal: turn.signal,
          user: { id: options.user, name: options.user },
          onEvent: (event) => renderEvent(event, options.toolProgress),
          requestApproval: (request) =>
            askApproval(rl, request, {
              interactive: options.interactive,
              timeoutMs: options.approvalTimeoutMs ?? 300_000,
              turn: turn.signal,
            }),
        });
        running = undefined;
        if (last.status === 'interrupted') process.stderr.write(`(turn interrupted: ${InterruptReason.ctrlC})\n`);
        else process.stdout.write(`${terminalText(last.text)}\n`);
      }
      if (options.interactive) {
        process.stdout.write('\n');
        rl.prompt();
      }
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    rl.close();
  }
  if (last?.status === 'error') process.exitCode = 1;
}
