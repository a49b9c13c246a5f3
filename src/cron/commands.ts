import { errorMessage } from '../shared/errors.js';
import { CronError } from './errors.js';
import { jobLine } from './describe.js';
import type { ThreadJobs } from './jobs.js';
import type { CronStore } from './store.js';

export const CRON_USAGE = 'Usage: /cron [list] | /cron pause <id> | /cron resume <id> | /cron remove <id> | /cron run <id> | /cron stop <id>';

/** The thread a chat command came from, as /cron and /sethome need it. */
export interface CommandThread {
  platform: string;
  threadKey: string;
  /** The adapter's reply target of the thread, as JSON. */
  target: string;
}

/** The answer to `/cron <args>` in `thread`. Bad input gets a sentence saying what to write; nothing throws. */
export function cronCommand(jobs: ThreadJobs, thread: CommandThread, args: string): string {
  const [verb = 'list', id = '', ...rest] = args.trim().split(/\s+/).filter(Boolean);
  const action = verb.toLowerCase();
  try {
    if (action === 'list' || action === 'ls') {
      const listed = jobs.list(thread.threadKey);
      if (listed.length === 0) return 'No scheduled jobs in this thread. Ask me to schedule one ("every morning at 9, check the build").';
      return [`Scheduled jobs in this thread (${listed.length}):`, ...listed.map(({ job, last, running }) => jobLine(job, last, running))].join('\n');
    }
    if (!['pause', 'resume', 'remove', 'rm', 'run', 'stop'].includes(action)) return `Unknown /cron action "${verb}". ${CRON_USAGE}`;
    if (!id || rest.length > 0) return `/cron ${action} takes one job id. ${CRON_USAGE}`;
    switch (action) {
      case 'pause':
        return `Paused ${jobs.pause(thread.threadKey, id).id}; /cron resume ${id} starts it again.`;
      case 'resume':
        return `Resumed ${jobs.resume(thread.threadKey, id).id}.`;
      case 'remove':
      case 'rm':
        return `Removed ${jobs.remove(thread.threadKey, id).id}.`;
      case 'run':
        return jobs.runNow(thread.threadKey, id) ? `Running ${id} now; its output comes here when it is done.` : `${id} is running already.`;
      default:
        return jobs.stop(thread.threadKey, id) ? `Stopped the running ${id}.` : `${id} is not running.`;
    }
  } catch (error) {
    return error instanceof CronError ? `Sorry: ${error.message}.` : `Sorry, /cron failed: ${errorMessage(error)}`;
  }
}

/** Who sent /sethome: their id, and whether they are an admin of the thread's platform. */
export interface CommandSender {
  id: string;
  admin: boolean;
}

/**
 * The answer to `/sethome`: from an admin (`approvals.admins`), the thread becomes its
 * platform's home channel for the home jobs made from now on (and those made in this thread);
 * jobs made elsewhere keep posting where they were scheduled. Anyone else is refused, and told who may.
 */
export function setHomeCommand(store: CronStore, thread: CommandThread, sender: CommandSender): string {
  if (!sender.admin) {
    return (
      `Only an admin of ${thread.platform} may move its home channel (where scheduled jobs deliver): ` +
      `the user ids listed in approvals.admins.${thread.platform} in config.yaml. Your ${thread.platform} user id is ${sender.id}; the home channel is unchanged.`
    );
  }
  const { kept } = store.setHome({ platform: thread.platform, threadKey: thread.threadKey, target: thread.target });
  const others = kept > 0 ? ` ${kept} job${kept === 1 ? '' : 's'} made before in other chats keep${kept === 1 ? 's' : ''} posting where ${kept === 1 ? 'it was' : 'they were'} scheduled.` : '';
  return `This chat is now the home channel of ${thread.platform}: scheduled jobs made with deliver "home" from now on post here.${others}`;
}
