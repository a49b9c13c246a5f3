import type { AgentRunner } from '../agent/index.js';
import { isAdmin, listedAdmins, type HermesConfig } from '../config/index.js';
import type { Audience } from '../environments/index.js';
import type { InboundMessage } from '../gateway/index.js';
import { SessionStore, type StateLocation } from '../sessions/index.js';
import type { Logger } from '../shared/logger.js';
import type { Tool } from '../tools/types.js';
import { cronCommand, setHomeCommand, type CommandThread } from './commands.js';
import { ThreadJobs, type OutboxView } from './jobs.js';
import { CronScheduler, type JobClaims, type JobPoster } from './scheduler.js';
import { CronStore } from './store.js';
import { cronjobTool } from './tool.js';

/** What the scheduler needs of the gateway: /cron and /sethome handed over, /stop passed on, and posting through the outbox. */
export interface CronGateway extends JobPoster {
  extend(extension: { answer(name: 'cron' | 'sethome', args: string, message: InboundMessage, target: string): Promise<string>; stop(threadKey: string): number | Promise<number> }): void;
}

export interface CronServiceOptions {
  config: HermesConfig;
  logger: Logger;
  /** The state database (state.db or PostgreSQL, `sessions.store`): the jobs live there. */
  stateDb: StateLocation;
  /** The gateway's outbox (the same state.db): where a thread's replies go, and whether a posted text arrived. */
  outbox: OutboxView;
}

/**
 * Scheduled jobs for one gateway: the cronjob tool (give it to the agent before it is made),
 * then `start` with the agent and the gateway, `stop` before the gateway stops.
 */
export class CronService {
  readonly tool: Tool;
  private readonly store: CronStore;
  private readonly sessions: SessionStore;
  private scheduler: CronScheduler | undefined;
  private jobs: ThreadJobs | undefined;
  private audienceOf: (platform: string) => Audience = () => 'others';

  constructor(private readonly options: CronServiceOptions) {
    this.store = CronStore.open(options.stateDb);
    this.sessions = SessionStore.open(options.stateDb, { logger: options.logger });
    this.tool = cronjobTool({
      jobs: () => this.jobs,
      outbox: options.outbox,
      threadOf: (sessionId) => this.sessions.get(sessionId)?.key,
      audienceOf: (platform) => this.audienceOf(platform),
    });
  }

  /**
   * Starts the scheduler: jobs in state.db run from now on, missed runs as `cron.missed_runs` says.
   * With several instances on one state.db, `claims` make each scheduled run one instance's.
   */
  start(host: { agent: AgentRunner; gateway: CronGateway; audienceOf: (platform: string) => Audience; claims?: JobClaims }): void {
    const { config, logger } = this.options;
    this.audienceOf = host.audienceOf;
    const scheduler = new CronScheduler({ config: config.cron, store: this.store, agent: host.agent, poster: host.gateway, logger: logger.child({ component: 'cron' }), ...(host.claims ? { claims: host.claims } : {}) });
    const jobs = new ThreadJobs(config.cron, this.store, scheduler, this.options.outbox);
    host.gateway.extend({
      answer: async (name, args, message, target) => {
        const thread: CommandThread = { platform: message.platform, threadKey: message.threadKey, target };
        if (name === 'sethome') {
          // The machine's owner alone writes on a platform whose audience is 'owner' (the web chat).
          const admin = host.audienceOf(message.platform) === 'owner' || isAdmin(listedAdmins(config), message.platform, message.user.id);
          return setHomeCommand(this.store, thread, { id: message.user.id, admin });
        }
        return (await this.stoppedElsewhere(scheduler, thread, args)) ?? cronCommand(jobs, thread, args);
      },
      stop: (threadKey) => scheduler.stopThreadAnywhere(threadKey),
    });
    this.scheduler = scheduler;
    this.jobs = jobs;
    scheduler.start();
  }

  /**
   * `/cron stop <id>` of this thread's job whose run goes on at another instance: stopped there
   * (undefined when that is not the case, and /cron answers as with one instance).
   */
  private async stoppedElsewhere(scheduler: CronScheduler, thread: CommandThread, args: string): Promise<string | undefined> {
    const [verb = '', id = '', ...rest] = args.trim().split(/\s+/).filter(Boolean);
    if (verb.toLowerCase() !== 'stop' || !id || rest.length > 0) return undefined;
    const job = this.store.job(id);
    if (!job || job.threadKey !== thread.threadKey || scheduler.isRunning(job.id)) return undefined;
    return (await scheduler.stopAnywhere(job)) ? `Stopped the running ${job.id}.` : undefined;
  }

  /** Stops the timer and the running jobs (their scripts' process groups die), then closes state.db. */
  async stop(): Promise<void> {
    this.jobs = undefined;
    await this.scheduler?.stop();
    this.store.close();
    this.sessions.close();
  }
}
