import type { AgentRunner, TokenCount, UsageReport } from '../agent/types.js';
import type { HermesConfig } from '../config/index.js';
import type { ThreadLane } from './lane.js';
import { InterruptReason } from '../shared/notices.js';
import type { ToolProgressMode } from './progress.js';
import { mcpStatusLines } from '../mcp/index.js';

/** The reason a running turn gets when /retry or /undo replaces it. */

const PROGRESS_CYCLE: readonly ToolProgressMode[] = ['off', 'new', 'all'];

export type SessionCommandName = 'usage' | 'model' | 'retry' | 'undo' | 'verbose' | 'compress' | 'reload_mcp';

export interface SessionCommandContext {
  agent: AgentRunner;
  config: HermesConfig;
  threadKey: string;
  args: string;
  lane: ThreadLane;
  signal: AbortSignal;
  say(text: string): Promise<void>;
  /** Runs `text` as a new message of the thread (/retry). */
  rerun(text: string): void;
  /** A turn a restart or an error cut off (the outbox's), and marking it retried. */
  cutOff?(): { input: string; markRetried(): void } | undefined;
}

const thousands = (n: number) => n.toLocaleString('en-US');
const dollars = (n: number) => `$${n < 0.01 ? n.toFixed(4) : n.toFixed(2)}`;
const ktokens = (n: number) => (n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`);

function tokensLine(count: TokenCount, extra = ''): string {
  const calls = `${count.calls} model call${count.calls === 1 ? '' : 's'}${extra}`;
  const cost = count.cost !== undefined ? ` — ${dollars(count.cost)}` : '';
  const estimated = count.estimated ? ' (partly counted here: the API reported no usage)' : '';
  const cached = cacheText(count);
  return `${thousands(count.promptTokens)} in${cached} + ${thousands(count.completionTokens)} out tokens (${calls})${cost}${estimated}`;
}

/** Of the input, what the provider's prompt cache gave and took (said only when it did). */
function cacheText(count: TokenCount): string {
  const read = count.cacheReadTokens ?? 0;
  const written = count.cacheWriteTokens ?? 0;
  if (read === 0 && written === 0) return '';
  const parts = [...(read > 0 ? [`${thousands(read)} read from cache`] : []), ...(written > 0 ? [`${thousands(written)} written to it`] : [])];
  return ` (${parts.join(', ')})`;
}

/** The /usage reply. */
export function usageText(report: UsageReport | undefined, pricingSet: boolean): string {
  if (!report) return 'No usage yet: this thread has no session (your next message starts one).';
  const { session, lastTurn, context } = report;
  const summaries = session.summaries > 0 ? `, ${session.summaries} for summaries` : '';
  const lines = [
    lastTurn ? `Last turn: ${tokensLine(lastTurn)}` : 'Last turn: none yet',
    `Session: ${tokensLine(session, summaries)}`,
    `Context: about ${ktokens(context.tokens)} of ${ktokens(context.window)} tokens (compacts at ${ktokens(context.threshold)}), model ${report.model}`,
  ];
  if (report.prompt) {
    const { tokens, memoryTokens, skillsTokens, skills } = report.prompt;
    lines.push(`System prompt: about ${ktokens(tokens)} tokens (your memory notes ${ktokens(memoryTokens)}, skills list ${ktokens(skillsTokens)} for ${skills} skill${skills === 1 ? '' : 's'})`);
  }
  if (!pricingSet) lines.push('Set model.pricing (dollars per million tokens) to see the cost.');
  return lines.join('\n');
}

/** Answers /usage, /model, /retry, /undo, /verbose, /compress and /reload-mcp. */
export async function runSessionCommand(name: SessionCommandName, ctx: SessionCommandContext): Promise<void> {
  const { agent, threadKey: key } = ctx;
  switch (name) {
    case 'usage':
      return ctx.say(agent.usage ? usageText(await agent.usage(key), ctx.config.model.pricing !== null) : 'This agent does not count usage.');
    case 'model':
      return ctx.say(await modelReply(ctx));
    case 'verbose':
      return ctx.say(verboseReply(ctx));
    case 'undo': {
      if (!agent.undo) return ctx.say('This agent cannot undo.');
      let undone: { text: string } | undefined;
      await ctx.lane.between(async () => void (undone = await agent.undo!(key)), InterruptReason.undo);
      if (!undone) return ctx.say('Nothing to undo: this session has no turn yet.');
      return ctx.say(`Dropped the last turn (“${preview(undone.text)}”) from what I see. The thread's whole history stays in state.db.`);
    }
    case 'retry': {
      const cut = ctx.cutOff?.();
      let text: string | undefined;
      if (agent.undo) await ctx.lane.between(async () => void (text = (await agent.undo!(key))?.text), InterruptReason.retry);
      text ??= cut?.input;
      if (!text) return ctx.say('Nothing to retry: this thread has no message yet.');
      cut?.markRetried();
      ctx.rerun(text);
      return;
    }
    case 'reload_mcp':
      return ctx.say(agent.reloadMcp ? await agent.reloadMcp() : 'This agent has no MCP servers to reload.');
    case 'compress': {
      if (!agent.compress) return ctx.say('This agent cannot compress its sessions.');
      let reply = '';
      await ctx.lane.between(async () => void (reply = (await agent.compress!(key, ctx.signal)).text));
      return ctx.say(reply);
    }
  }
}

async function modelReply(ctx: SessionCommandContext): Promise<string> {
  const { agent, threadKey: key, config } = ctx;
  const configured = config.model.name || '(none configured)';
  if (!agent.threadSettings || !agent.updateThreadSettings) return `Model: ${configured}. This agent has no per-thread model.`;
  const wanted = ctx.args.split(/\s+/)[0] ?? '';
  if (!wanted) {
    const chosen = agent.threadSettings(key).model;
    return chosen
      ? `Model in this thread: ${chosen} (model.name is ${configured}). /model default goes back.`
      : `Model: ${configured} (model.name). /model <name> picks another for this thread.`;
  }
  if (wanted === 'default' || wanted === 'reset') {
    agent.updateThreadSettings(key, { model: undefined });
    return `This thread uses model.name again: ${configured}.`;
  }
  const known = await agent.models?.();
  if (known && known.length > 0 && !known.includes(wanted)) {
    const shown = known.slice(0, 20).join(', ');
    return `The model endpoint does not list "${wanted}". It lists: ${shown}${known.length > 20 ? `, … (${known.length} in all)` : ''}.`;
  }
  agent.updateThreadSettings(key, { model: wanted });
  return `This thread now uses ${wanted}; its next message goes to it. /model default goes back to ${configured}.`;
}

function verboseReply(ctx: SessionCommandContext): string {
  const { agent, threadKey: key, config } = ctx;
  if (!agent.threadSettings || !agent.updateThreadSettings) return 'This agent keeps no per-thread settings.';
  const current = agent.threadSettings(key).toolProgress ?? config.display.tool_progress;
  const asked = ctx.args.trim().toLowerCase();
  if (asked && !(PROGRESS_CYCLE as readonly string[]).includes(asked)) return `/verbose takes off, new or all (now: ${current}).`;
  const next = (asked || PROGRESS_CYCLE[(PROGRESS_CYCLE.indexOf(current) + 1) % PROGRESS_CYCLE.length]) as ToolProgressMode;
  agent.updateThreadSettings(key, { toolProgress: next });
  const what = { off: 'no tool activity', new: 'a line when the tool changes', all: 'a line for every tool call' }[next];
  return `Tool progress in this thread: ${next} (${what}).`;
}

/** The /status lines of the MCP servers: one a server, ready or why not. */
export function mcpStatusText(agent: AgentRunner): string[] {
  return mcpStatusLines(agent.mcpStatus?.() ?? []);
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
