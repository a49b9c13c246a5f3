import type { AgentRunner } from '../agent/index.js';
import type { RunStatus, CronJob } from './types.js';

/** The session key a job's runs use: its own, never its thread's (a run does not interrupt the thread's turn or see its history). */
export function jobSessionKey(jobId: string): string {
  return `cron:${jobId}`;
}

/** True for a job run's own session: those cannot make jobs. */
export function isJobSession(sessionKey: string): boolean {
  return sessionKey.startsWith('cron:');
}

export interface RunOutcome {
  status: Exclude<RunStatus, 'running' | 'skipped'>;
  /** What the chat is shown: the script's output, or the model's answer, or what went wrong. */
  text: string;
}

/**
 * One run of `job`: a script goes through execute_code on the session's backend with no model
 * call; a prompt is one agent turn in a fresh session of the job's own. Never throws.
 */
export async function runJob(agent: AgentRunner, job: CronJob, signal: AbortSignal): Promise<RunOutcome> {
  const key = jobSessionKey(job.id);
  if (job.kind === 'script') {
    if (!agent.runScript) return { status: 'error', text: 'this agent cannot run scripts without the model' };
    const result = await agent.runScript(key, job.payload, { signal, audience: job.audience });
    const text = [result.output.trim(), result.status !== 'success' && result.error ? result.error : ''].filter(Boolean).join('\n');
    return { status: result.status, text };
  }
  // Each run starts from nothing: yesterday's report does not grow today's prompt.
  await agent.newSession(key);
  const result = await agent.runTurn({ sessionKey: key, text: job.payload, signal, audience: job.audience });
  const status = result.status === 'completed' ? 'success' : result.status === 'interrupted' ? 'interrupted' : 'error';
  return { status, text: result.text };
}
