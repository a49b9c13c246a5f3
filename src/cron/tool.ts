import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import type { Tool, ToolContext } from '../tools/types.js';
import type { Audience } from '../environments/index.js';
import { CronError } from './errors.js';
import { jobView } from './describe.js';
import type { OutboxView, ThreadJobs } from './jobs.js';
import { isJobSession } from './run-job.js';

/** A prompt or script longer than this is refused (it is stored and sent again at every run). */
const MAX_PAYLOAD_CHARS = 20_000;

export interface CronToolDeps {
  /** The jobs, once the gateway runs; undefined before. */
  jobs: () => ThreadJobs | undefined;
  outbox: OutboxView;
  /** The thread key of a session id (state.db). */
  threadOf: (sessionId: string) => string | undefined;
  audienceOf: (platform: string) => Audience;
}

const args = z.object({
  action: z.enum(['create', 'list', 'pause', 'resume', 'remove']).describe('what to do'),
  schedule: z
    .string()
    .optional()
    .describe('create: a cron expression ("0 9 * * 1-5", minute first; six fields put seconds first) or an interval ("every 30m", "every 2h")'),
  prompt: z.string().max(MAX_PAYLOAD_CHARS).optional().describe('create: what the agent is asked at each run, in a fresh session (give this or script)'),
  script: z
    .string()
    .max(MAX_PAYLOAD_CHARS)
    .optional()
    .describe('create: Python run through execute_code at each run with no model call; what it prints is delivered (give this or prompt)'),
  deliver: z.enum(['thread', 'home']).optional().describe('create: "thread" (this one, the default) or "home" (the platform\'s home channel, set with /sethome)'),
  id: z.string().optional().describe('pause, resume, remove: the job id (from list)'),
});

/**
 * The cronjob tool: the model makes, lists, pauses, resumes and removes the scheduled jobs of the
 * thread it is talking in. Bad input (a malformed schedule, too many jobs) comes back as `{ error }`.
 */
export function cronjobTool(deps: CronToolDeps): Tool {
  return defineTool({
    name: 'cronjob',
    description:
      'Schedule work that runs later and posts its result in this chat: a cron expression or "every 2h", with a prompt ' +
      '(you answer it then, in a fresh session) or a Python script (run through execute_code, no model call; what it prints is posted). ' +
      'Actions: create, list, pause, resume, remove. Jobs belong to this thread and survive restarts.',
    args,
    async run(input, ctx) {
      const jobs = deps.jobs();
      if (!jobs) return { error: 'scheduled jobs are not running (the gateway has not started them, or cron.enabled is false)' };
      const threadKey = threadKeyOf(deps, ctx);
      if (!threadKey) return { error: 'this session belongs to no chat thread, so a job would have nowhere to post' };
      try {
        switch (input.action) {
          case 'list':
            return { jobs: jobs.list(threadKey).map(({ job, last }) => jobView(job, last)) };
          case 'pause':
            return { paused: jobView(jobs.pause(threadKey, need(input.id, 'id', 'pause')), jobs.lastRun(need(input.id, 'id', 'pause'))) };
          case 'resume':
            return { resumed: jobView(jobs.resume(threadKey, need(input.id, 'id', 'resume')), jobs.lastRun(need(input.id, 'id', 'resume'))) };
          case 'remove':
            return { removed: jobs.remove(threadKey, need(input.id, 'id', 'remove')).id };
          case 'create':
            return { created: jobView(create(deps, jobs, threadKey, input), undefined) };
        }
      } catch (error) {
        if (error instanceof CronError) return { error: `cronjob ${input.action}: ${error.message}` };
        throw error;
      }
    },
  });
}

function create(deps: CronToolDeps, jobs: ThreadJobs, threadKey: string, input: z.output<typeof args>) {
  if (isJobSession(threadKey)) throw new CronError('CRON_NESTED', 'a scheduled job cannot make scheduled jobs');
  const schedule = need(input.schedule, 'schedule', 'create');
  const given = [input.prompt?.trim() ? 'prompt' : '', input.script?.trim() ? 'script' : ''].filter(Boolean);
  if (given.length !== 1) throw new CronError('CRON_ARGS', `give exactly one of "prompt" or "script" (got ${given.length === 0 ? 'neither' : 'both'})`);
  const where = deps.outbox.latestTarget(threadKey);
  if (!where) throw new CronError('CRON_NO_THREAD', 'this thread has no chat to post in yet');
  const kind = given[0] === 'script' ? 'script' : 'prompt';
  return jobs.create({
    threadKey,
    platform: where.platform,
    target: where.target,
    audience: deps.audienceOf(where.platform),
    schedule,
    kind,
    payload: (kind === 'script' ? input.script : input.prompt) ?? '',
    deliver: input.deliver ?? 'thread',
  });
}

function need(value: string | undefined, name: string, action: string): string {
  if (!value?.trim()) throw new CronError('CRON_ARGS', `"${name}" is required for ${action}`);
  return value;
}

/** A subagent's calls (`<session>::child::<n>`) belong to its parent's thread. */
function threadKeyOf(deps: CronToolDeps, ctx: ToolContext): string | undefined {
  return deps.threadOf(ctx.sessionId.split('::')[0]);
}
