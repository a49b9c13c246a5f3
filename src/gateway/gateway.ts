import type { AgentEvent, AgentRunner, ApprovalRequest } from '../agent/types.js';
import { InterruptReason, KERNEL_MOVED_NOTE, KERNEL_MOVED_NOTICE } from '../shared/notices.js';
import type { HermesConfig } from '../config/index.js';
import { errorMessage } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { AccessPolicy } from './access.js';
import { Admission } from './admission.js';
import { PeopleCommands } from './people-commands.js';
import { PairingStore } from '../pairing/index.js';
import { answerReply, approvalOutcomeText, approvalPrompt, approvalQueueFor, approvalStatusLines, forgetReply, parseApprovalCommand } from './approvals.js';
import type { ApprovalPerson, ApprovalQueue } from '../approvals/index.js';
import { formatAge, helpText, parseCommand, type CommandName } from './commands.js';
import { GatewayError } from './errors.js';
import { ThreadLane } from './lane.js';
import { Semaphore } from '../shared/semaphore.js';
import { runRenderedTurn } from './turn.js';
import { mcpStatusText, runSessionCommand } from './session-commands.js';
import { OutboxStore } from './outbox/store.js';
import { recoverOutbox } from './outbox/recover.js';
import { ThreadDelivery } from './stream/delivery.js';
import { ThreadReplies } from './stream/replies.js';
import type { TurnFiles } from './turn-files.js';
import type { Environment } from '../environments/index.js';
import type { InboundMessage, PlatformAdapter, ReplyTarget } from './types.js';
import { reopenPassedAttachments } from './passed-attachments.js';
import { ONE_INSTANCE } from './one-instance.js';
import { readThread } from './thread-ref.js';
import { answerOfChoice, newApprovalRequestId, type ApprovalPress } from './approval-buttons.js';
import { voiceCommandReply } from './voice-command.js';
import { voiceInput, voiceOutput } from './voice-reply.js';


/**
 * Where a thread's messages run: the threads part of src/coordination's `Coordination` (in
 * process, `ONE_INSTANCE`: every thread is here; on Redis, where the thread's lease is).
 */
export interface GatewayThreadRouter {
  /** True when the message runs here; false when it went to the instance that has the thread. */
  claim(message: InboundMessage): boolean | Promise<boolean>;
  /** The thread has nothing running or waiting here. */
  idle(threadKey: string): void;
  /** Takes the thread for work without a message (unsent replies at start); false while a live instance holds it. */
  take(threadKey: string): Promise<boolean>;
  /** Work taken with `take` is over. */
  done(threadKey: string): void;
  /** True once when the thread's Python state was in another instance's kernel (the thread moved here). */
  kernelMoved(threadKey: string): Promise<boolean>;
  /** execute_code runs here for the thread (its state is in this instance's kernel now). */
  kernelHere(threadKey: string): void;
  /** The thread started a new session (/new): its kernel state is gone on purpose. */
  kernelReset(threadKey: string): void;
  /** Replies go out in the thread outside its lease (a job's output, a command's answer); resolves with the function that ends it. */
  sending(threadKey: string): Promise<() => void>;
}

export interface GatewayOptions {
  agent: AgentRunner;
  config: HermesConfig;
  logger?: Logger;
  /** Where the allow-list variables are read: the settings' environment (none when not given). */
  env?: NodeJS.ProcessEnv;
  /**
   * Where approval requests wait and how they are answered; when absent, one with
   * `approvals.timeout` and `approvals.admins` whose "always" rules last only this run
   * (`hermes gateway` keeps them in `HERMES_HOME/approvals.yaml`).
   */
  approvals?: ApprovalQueue;
  /**
   * Where replies wait until the platform confirmed them (state.db for `hermes gateway`); a
   * private in-memory one when absent. The gateway closes only one it made itself.
   */
  outbox?: OutboxStore;
  /** Hears when a turn's first answer text is visible, with the thread key (the bench). */
  onFirstVisible?: (threadKey: string) => void;
  /** Where a thread's messages run: the coordination's threads (`hermes gateway` always gives it); alone when absent. */
  router?: GatewayThreadRouter;
  /** Pairing codes and approved people (state.db for `hermes gateway`, shared by every instance); a private in-memory one when absent. */
  pairing?: PairingStore;
  /** The clock of pairing codes and the bot-message limit (tests move it). */
  now?: () => number;
}

/** Chat commands another module answers (/cron, /sethome), and what /stop also stops there. */
export interface CommandExtension {
  /** `target` is the message's reply target as its platform's `ThreadRef` encodes it (where a job delivers). */
  answer(name: 'cron' | 'sethome', args: string, message: InboundMessage, target: string): Promise<string>;
  /** Stops what runs for `threadKey` (its scheduled jobs, on any instance); returns how many it stopped. */
  stop(threadKey: string): number | Promise<number>;
}

/** How a posted text ended: delivered, given up, or left for after a restart (`pending`). */
export type PostOutcome = { outboxId: string; state: 'delivered' | 'failed' | 'pending' } | { error: string };

export interface StartReport {
  started: string[];
  failed: Array<{ name: string; error: string }>;
}

/**
 * Takes messages from platform adapters, checks who sent them, answers chat commands, and
 * runs agent turns in one lane per thread (at most `gateway.max_concurrent_turns` at once).
 */
export class Gateway {
  private readonly adapters = new Map<string, PlatformAdapter>();
  private readonly lanes = new Map<string, ThreadLane>();
  private readonly semaphore: Semaphore;
  private readonly access: AccessPolicy;
  private readonly pairing: PairingStore;
  private readonly admission: Admission;
  private readonly people: PeopleCommands;
  private readonly approvals: ApprovalQueue;
  private readonly logger: Logger;
  /** Command replies and other work that outlives `dispatch`. */
  private readonly background = new Set<Promise<unknown>>();
  private readonly lifetime = new AbortController();
  private readonly outbox: OutboxStore;
  private readonly ownsOutbox: boolean;
  /** One delivery queue per thread with replies on their way. */
  private readonly deliveries = new Map<string, ThreadDelivery>();
  private closing = false;
  private extension: CommandExtension | undefined;
  private readonly router: GatewayThreadRouter;

  constructor(private readonly options: GatewayOptions) {
    const { config } = options;
    this.router = options.router ?? ONE_INSTANCE;
    this.logger = (options.logger ?? silentLogger()).child({ component: 'gateway' });
    this.semaphore = new Semaphore(config.gateway.max_concurrent_turns);
    this.pairing = options.pairing ?? PairingStore.open(':memory:', options.now ? { now: options.now } : {});
    this.access = new AccessPolicy(config, options.env ?? {}, this.pairing);
    this.admission = new Admission({ config, access: this.access, pairing: this.pairing, logger: this.logger, now: options.now ?? Date.now });
    this.people = new PeopleCommands(config, this.access, this.pairing);
    this.approvals = options.approvals ?? approvalQueueFor(config, { logger: this.logger });
    this.ownsOutbox = !options.outbox;
    this.outbox = options.outbox ?? OutboxStore.open(':memory:');
  }

  /** Adds an adapter; its messages are dispatched here once `start` runs. */
  register(adapter: PlatformAdapter): void {
    if (this.adapters.has(adapter.name)) {
      throw new GatewayError('GATEWAY_DUPLICATE_ADAPTER', `gateway: an adapter named "${adapter.name}" is already registered; give each platform one adapter`);
    }
    this.adapters.set(adapter.name, adapter);
  }

  /** Hands /cron and /sethome to `extension`, and lets /stop stop what it runs. */
  extend(extension: CommandExtension): void {
    this.extension = extension;
  }

  /**
   * Sends `text` to the thread of `target` (a reply target as JSON, as the outbox keeps it) through
   * `platform`'s adapter, as its own outbox entry: retried like any reply, finished after a restart.
   * Resolves once it is delivered, given up, or left for after a restart.
   */
  async post(platform: string, target: string, text: string): Promise<PostOutcome> {
    const adapter = this.adapters.get(platform);
    if (!adapter) return { error: `the ${platform} platform is not running in this gateway` };
    const decoded = readThread(adapter.thread, target, { platform, from: 'a posted job result', logger: this.logger });
    if (!decoded) return { error: `the ${platform} adapter cannot read the reply target` };
    const replies = this.replies(adapter, decoded);
    // Several instances: marked before it is in the outbox, so one starting meanwhile leaves it to this one.
    const sent = await this.router.sending(decoded.threadKey);
    let outboxId: string;
    try {
      outboxId = replies.beginTurn('', 'reply');
      const done = replies.stream(outboxId).finish(text);
      replies.finishTurn(outboxId, 'completed');
      await done;
    } finally {
      sent();
    }
    const parts = this.outbox.parts(outboxId);
    const state = parts.some((part) => part.state === 'failed') ? 'failed' : parts.every((part) => part.state === 'delivered') ? 'delivered' : 'pending';
    return { outboxId, state };
  }

  /** The registered adapters, by name. */
  get platforms(): string[] {
    return [...this.adapters.keys()];
  }

  /** Starts every registered adapter. One that fails is reported and left out; the rest run. */
  async start(): Promise<StartReport> {
    const report: StartReport = { started: [], failed: [] };
    const handler = (message: InboundMessage) => this.dispatch(message);
    await Promise.all(
      [...this.adapters.values()].map(async (adapter) => {
        try {
          await adapter.start(handler, this.lifetime.signal);
          report.started.push(adapter.name);
          this.logger.info({ platform: adapter.name }, 'platform started');
        } catch (error) {
          report.failed.push({ name: adapter.name, error: errorMessage(error) });
          this.adapters.delete(adapter.name);
          this.logger.error({ err: error, platform: adapter.name }, 'platform failed to start');
        }
      }),
    );
    // Replies an earlier run left on their way go out now; threads it cut off are told so.
    this.track(
      recoverOutbox({
        outbox: this.outbox,
        adapters: this.adapters,
        replies: (adapter, target) => this.replies(adapter, target),
        delivery: (adapter, threadKey) => this.delivery(adapter, threadKey),
        logger: this.logger,
        // Several instances: a thread's leftovers are resumed only by the instance that takes it.
        take: (threadKey: string) => this.takeThread(threadKey),
      }),
    );
    return report;
  }

  /**
   * Takes one message from an adapter. Returns quickly: commands are answered in the
   * background and turns run in the thread's lane.
   */
  async dispatch(message: InboundMessage): Promise<void> {
    if (this.closing) {
      this.logger.info({ thread: message.threadKey }, 'message dropped: the gateway is shutting down');
      return;
    }
    const adapter = this.adapters.get(message.platform);
    if (!adapter) {
      this.logger.warn({ platform: message.platform }, 'message from a platform with no registered adapter dropped');
      return;
    }
    const log = { platform: message.platform, user: message.user.id, thread: message.threadKey };
    // Group chats, bots, strangers and pairing codes (src/gateway/admission.ts); a person's own session in a group thread.
    const replyTo = message.replyTo;
    const admitted = this.admission.admit(message, (text) => this.track(this.reply(adapter, replyTo, text)));
    if (!admitted) return;
    message = admitted;
    if (!message.text.trim() && !message.attachments?.length && !message.approval) return;
    // In process the claim is a plain true: the message reaches its lane in this tick.
    const claimed = this.router.claim(message);
    if (claimed !== true && !(await claimed)) return;
    const press = message.approval;
    if (press) {
      this.logger.info({ ...log, approval: press.choice }, 'approval button press');
      this.track(this.answering(message.threadKey, () => this.answerPress(press, message, adapter)));
      return;
    }
    // A file's caption is never a command: the file would be dropped.
    const command = message.attachments?.length ? undefined : parseCommand(message.text);
    if (command) {
      this.logger.info({ ...log, command: command.name }, 'chat command');
      this.track(this.answering(message.threadKey, () => this.command(command.name, command.args, message, adapter)));
      return;
    }
    this.lane(message.threadKey).push(message);
  }

  /**
   * A message another instance passed here (it holds the thread): its files are rebuilt through
   * this instance's adapter from the refs that came with them, and those that cannot be are told.
   */
  async dispatchPassed(message: InboundMessage, attachments: unknown): Promise<void> {
    const adapter = this.adapters.get(message.platform);
    if (!adapter || this.closing) return this.dispatch(message);
    // It came through another instance (Redis): its reply target is read, never trusted.
    const replyTo = readThread(adapter.thread, message.replyTo, { platform: message.platform, from: 'a message another instance passed', logger: this.logger });
    if (!replyTo) return;
    if (replyTo.threadKey !== message.threadKey) {
      this.logger.error({ platform: message.platform, thread: message.threadKey }, 'a passed message whose reply target names another thread was refused');
      return;
    }
    message = { ...message, replyTo };
    const reopened = await reopenPassedAttachments(attachments, adapter, this.logger);
    if (reopened.refusals.length > 0 && this.access.isAllowed(message.platform, message.user.id)) {
      this.track(this.reply(adapter, message.replyTo, reopened.refusals.join('\n')));
    }
    return this.dispatch(reopened.attachments.length > 0 ? { ...message, attachments: reopened.attachments } : message);
  }

  /**
   * A command's answer: several instances are told it is on its way, as a job's output is. The
   * command starts at once (what it does comes before the thread's next message), beside the mark.
   */
  private async answering(threadKey: string, work: () => Promise<void>): Promise<void> {
    const [ran, marked] = await Promise.allSettled([work(), this.router.sending(threadKey)]);
    if (marked.status === 'fulfilled') marked.value();
    if (ran.status === 'rejected') throw ran.reason;
  }

  private async takeThread(threadKey: string): Promise<(() => void) | undefined> {
    if (!(await this.router.take(threadKey))) return undefined;
    return () => this.router.done(threadKey);
  }

  /** Resolves when no turn runs or waits and no command reply is pending (tests, bench). */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.lanes.values()].filter((lane) => !lane.idle);
      if (busy.length === 0 && this.background.size === 0) return;
      await Promise.all([...busy.map((lane) => lane.whenIdle()), ...this.background]);
    }
  }

  /** What runs in one thread right now. */
  threadState(threadKey: string): { running: boolean; queued: number } {
    const lane = this.lanes.get(threadKey);
    return { running: lane?.running ?? false, queued: lane?.queued ?? 0 };
  }

  /**
   * Shuts down: takes no more messages, aborts running turns with `gateway shutting down`,
   * waits for them (bounded), disposes kernels (`agent.close()`), then stops the adapters.
   * Each step is bounded so the whole stays within `timeoutMs`.
   */
  async stop(timeoutMs = 9000): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const deadline = Date.now() + timeoutMs;
    const left = (share: number) => Math.max(100, (deadline - Date.now()) * share);
    for (const lane of this.lanes.values()) lane.close(InterruptReason.shutdown);
    this.lifetime.abort(InterruptReason.shutdown);
    await within(this.idle(), left(0.5), () => this.logger.warn('turns did not settle in time'));
    await within(this.options.agent.close(), left(0.5), () => this.logger.warn('agent.close() did not finish in time'));
    await within(
      Promise.allSettled(
        [...this.adapters.values()].map((adapter) =>
          adapter.stop().catch((error: unknown) => this.logger.warn({ err: error, platform: adapter.name }, 'adapter stop failed')),
        ),
      ),
      left(1),
      () => this.logger.warn('adapters did not stop in time'),
    );
    if (this.ownsOutbox) this.outbox.close();
    if (!this.options.pairing) this.pairing.close();
    this.logger.info('gateway stopped');
  }

  private lane(threadKey: string): ThreadLane {
    let lane = this.lanes.get(threadKey);
    if (!lane) {
      const created: ThreadLane = new ThreadLane(threadKey, {
        semaphore: this.semaphore,
        mode: this.options.config.gateway.busy_input_mode,
        logger: this.logger,
        runTurn: (messages, signal, steer) => this.runTurn(messages, signal, steer),
        reset: () => this.options.agent.newSession(threadKey),
        // A thread that went quiet costs nothing; its lane is made again on its next message.
        onIdle: () => {
          if (created.idle && this.lanes.get(threadKey) === created) this.lanes.delete(threadKey);
          this.router.idle(threadKey);
        },
      });
      lane = created;
      this.lanes.set(threadKey, lane);
    }
    return lane;
  }

  private async runTurn(messages: InboundMessage[], signal: AbortSignal, steer?: () => string[]): Promise<void> {
    const adapter = this.adapters.get(messages[0].platform);
    if (!adapter) return;
    // The turn answers the last message: its sender is who may answer its approval requests.
    const last = messages[messages.length - 1];
    const requester: ApprovalPerson = { platform: last.platform, id: last.user.id, ...(last.user.name ? { name: last.user.name } : {}) };
    const kernels = this.kernelTracking(adapter, last);
    await runRenderedTurn(
      {
        ...(await kernels.moved()),
        agent: this.options.agent,
        adapter,
        logger: this.logger,
        // A thread's /verbose wins over display.tool_progress.
        toolProgress: this.options.agent.threadSettings?.(last.threadKey).toolProgress ?? this.options.config.display.tool_progress,
        ...(steer ? { steer } : {}),
        replies: this.replies(adapter, last.replyTo),
        reactions: this.options.config.display.reactions,
        onFirstVisible: () => this.options.onFirstVisible?.(last.threadKey),
        files: this.turnFiles(last),
        voice: voiceOutput(this.options.config, this.options.env ?? {}, this.options.agent.threadSettings?.(last.threadKey).voice, this.lifetime.signal),
        requestApproval: (replyTo, request, turnSignal) => this.requestApproval(adapter, replyTo, request, turnSignal, requester),
        ...kernels.events,
      },
      messages,
      signal,
    );
  }

  /**
   * Several instances: a thread whose Python state was in another instance's kernel is told so
   * once, before the answer, and so is the model; execute_code running here records it here.
   */
  private kernelTracking(adapter: PlatformAdapter, message: InboundMessage): { moved: () => Promise<{ notes?: string[] }>; events: { onEvent?: (event: AgentEvent) => void } } {
    const router = this.router;
    if (!this.options.config.code_execution.session_kernels) return { moved: async () => ({}), events: {} };
    const here = router.kernelHere.bind(router);
    return {
      moved: async () => {
        if (!(await router.kernelMoved(message.threadKey))) return {};
        await this.reply(adapter, message.replyTo, KERNEL_MOVED_NOTICE);
        return { notes: [KERNEL_MOVED_NOTE] };
      },
      events: {
        onEvent: (event) => {
          if (event.type === 'tool_started' && event.name === 'execute_code') here(message.threadKey);
        },
      },
    };
  }

  /** How the turn answering `message` moves files: through its session's environment, when the agent has one. */
  private turnFiles(message: InboundMessage): TurnFiles | undefined {
    const agent = this.options.agent;
    const adapter = this.adapters.get(message.platform);
    if (!agent.environment || !adapter) return undefined;
    let made: Promise<Environment> | undefined;
    const audience = adapter.audience ?? 'others';
    const { config } = this.options;
    return {
      environment: () => (made ??= agent.environment!(message.threadKey, audience)),
      maxInboundBytes: Math.floor(config.files.max_inbound_mb * 1024 * 1024),
      vision: config.model.vision !== false,
      signal: this.lifetime.signal,
      ...voiceInput(config, this.options.env ?? {}),
    };
  }

  /**
   * Shows one request (with buttons where the adapter has them) and waits in the queue. When
   * the request cannot be shown it is refused at once and nothing is left waiting; once it
   * ends, its message says how and loses its buttons.
   */
  private async requestApproval(
    adapter: PlatformAdapter,
    replyTo: ReplyTarget,
    request: ApprovalRequest,
    signal: AbortSignal,
    requester: ApprovalPerson,
  ): Promise<boolean> {
    const seconds = this.options.config.approvals.timeout;
    const prompt = approvalPrompt(request, requester, seconds);
    let shown: { messageId: string; buttons: boolean } | undefined;
    let announced: Promise<void> | undefined;
    const buttons = adapter.approvals;
    const id = newApprovalRequestId();
    const outcome = await this.approvals.ask({
      sessionKey: replyTo.threadKey,
      id,
      request,
      requester,
      signal,
      announce: () =>
        (announced = (async () => {
          shown = buttons
            ? { ...(await buttons.ask(replyTo, prompt.text, id)), buttons: true }
            : { ...(await adapter.send(replyTo, prompt.text)), buttons: false };
        })()),
    });
    // An answer can come before the platform's reply to the send does (a person is quick, a
    // throttled chat is slow): the message id is needed to settle it.
    await announced?.catch(() => undefined);
    if (outcome.kind === 'undelivered') {
      this.logger.warn({ err: outcome.error, thread: replyTo.threadKey }, 'could not show an approval request; it is refused');
    }
    const settle = buttons?.settle?.bind(buttons) ?? (shown?.buttons ? adapter.edit?.bind(adapter) : undefined);
    if (shown && settle && outcome.kind !== 'preapproved' && outcome.kind !== 'undelivered') {
      // The buttons go once the request has ended, so nobody presses a dead one.
      await settle(replyTo, shown.messageId, `${prompt.header}\n\n${approvalOutcomeText(outcome, seconds)}`).catch((error: unknown) =>
        this.logger.warn({ err: error, thread: replyTo.threadKey }, 'could not update the approval message'),
      );
    }
    return outcome.kind === 'approved' || outcome.kind === 'preapproved';
  }

  /** A button press: the typed answer to the one request it names, from the presser (refused unless they may answer). */
  private async answerPress(press: ApprovalPress, message: InboundMessage, adapter: PlatformAdapter): Promise<void> {
    const key = message.threadKey;
    const by: ApprovalPerson = { platform: message.platform, id: message.user.id, ...(message.user.name ? { name: message.user.name } : {}) };
    const result = this.approvals.answer(key, by, answerOfChoice(press.choice), press.requestId);
    if (result.kind === 'not_yours') this.logger.warn({ thread: key, user: by.id, requester: result.requester.id }, 'refused an approval button press from someone who did not ask');
    if (result.kind === 'nothing_waiting') this.logger.warn({ thread: key, user: by.id, request: press.requestId }, 'an approval button press names no waiting request');
    const reply = result.kind === 'nothing_waiting' ? 'This approval request is no longer waiting.' : answerReply(result);
    await this.reply(adapter, message.replyTo, reply);
  }

  private async command(name: CommandName, args: string, message: InboundMessage, adapter: PlatformAdapter): Promise<void> {
    const key = message.threadKey;
    const say = (text: string) => this.reply(adapter, message.replyTo, text);
    const refusal = this.people.refusal(name, args, message);
    if (refusal) {
      this.logger.warn({ thread: key, user: message.user.id, command: name }, 'refused an admin command from a user');
      return say(refusal);
    }
    switch (name) {
      case 'whoami':
        return say(this.people.whoami(message));
      case 'pair':
        return say(this.people.pair(args, message));
      case 'help':
        return say(helpText());
      case 'status':
        return say(this.statusText(key));
      case 'stop': {
        const { stoppedTurn, dropped } = this.lanes.get(key)?.stop(InterruptReason.stop) ?? { stoppedTurn: false, dropped: 0 };
        const jobs = await (this.extension?.stop(key) ?? 0);
        const extra = dropped > 0 ? ` (and dropped ${dropped} waiting message${dropped === 1 ? '' : 's'})` : '';
        const jobText = jobs > 0 ? ` Stopped ${jobs} running scheduled job${jobs === 1 ? '' : 's'}.` : '';
        if (!stoppedTurn && dropped === 0) return say(jobText.trim() || 'Nothing is running.');
        return say(`Stopped${extra}.${jobText}`);
      }
      case 'cron':
      case 'sethome': {
        if (!this.extension) return say('Scheduled jobs are not running in this gateway (cron.enabled is false).');
        return say(await this.extension.answer(name, args, message, adapter.thread.encode(message.replyTo)));
      }
      case 'new':
        try {
          this.approvals.endSession(key);
          await this.lane(key).reset(InterruptReason.newSession);
          this.router.kernelReset(key);
          return say('Started a new session. The earlier conversation is kept but no longer used.');
        } catch (error) {
          this.logger.error({ err: error, thread: key }, 'could not start a new session');
          return say('Sorry, I could not start a new session; the details are in the gateway log.');
        }
      case 'retry':
      case 'undo':
      case 'usage':
      case 'model':
      case 'compress':
      case 'verbose':
      case 'reload_mcp':
        return runSessionCommand(name, {
          agent: this.options.agent,
          config: this.options.config,
          threadKey: key,
          args,
          lane: this.lane(key),
          signal: this.lifetime.signal,
          say,
          rerun: (text) => {
            this.logger.info({ thread: key }, 'running the last message again');
            this.lane(key).push({ ...message, text, messageId: `${message.messageId}:retry` });
          },
          cutOff: () => {
            const turn = this.outbox.retryable(key);
            return turn ? { input: turn.input, markRetried: () => this.outbox.setState(turn.id, 'retried') } : undefined;
          },
        });
      case 'memory':
        // The sender's own notes, never anyone else's; shown only in a direct chat.
        if (!this.options.agent.memoryCommand) return say('This agent keeps no memory.');
        return say(this.options.agent.memoryCommand({ platform: message.platform, id: message.user.id }, args, message.chat.type === 'dm'));
      case 'skills':
        return say(this.options.agent.skillsCommand?.() ?? 'This agent has no skills.');
      case 'voice':
        return say(voiceCommandReply({ agent: this.options.agent, adapter, threadKey: key, args, config: this.options.config, env: this.options.env ?? {} }));
      case 'approve':
      case 'deny': {
        const parsed = parseApprovalCommand(name, args);
        if (parsed.kind === 'invalid') return say(parsed.message);
        if (parsed.kind === 'forget') return say(forgetReply(this.approvals.rules, parsed.rule));
        const by: ApprovalPerson = { platform: message.platform, id: message.user.id, ...(message.user.name ? { name: message.user.name } : {}) };
        const result = this.approvals.answer(key, by, parsed.answer);
        if (result.kind === 'not_yours') this.logger.warn({ thread: key, user: by.id, requester: result.requester.id }, 'refused an approval answer from someone who did not ask');
        return say(answerReply(result));
      }
    }
  }

  private statusText(threadKey: string): string {
    const { model, backend, platformBackend, isolationWarning, answeredBy } = this.options.agent.describe();
    const info = this.options.agent.sessionInfo(threadKey);
    const state = this.threadState(threadKey);
    const turn = state.running ? 'running' : 'idle';
    const chosen = this.options.agent.threadSettings?.(threadKey).model;
    return [
      chosen ? `Model: ${chosen} (this thread's /model; model.name is ${model || 'not set'})` : `Model: ${model || '(none configured)'}`,
      ...(answeredBy ? [`Answered by: ${answeredBy}`] : []),
      `Backend: ${backend}${platformBackend && platformBackend !== backend ? ` (sessions from the chat platforms: ${platformBackend})` : ''}`,
      ...(isolationWarning ? [`⚠ ${isolationWarning}`] : []),
      info
        ? `Session: ${info.sessionId}, started ${formatAge(info.createdAt)} ago, ${info.messageCount} messages`
        : 'Session: none yet (your next message starts one)',
      `Kernel: ${info?.kernel ?? 'none'}`,
      `Turn: ${turn}${state.queued > 0 ? `, ${state.queued} waiting` : ''}`,
      ...mcpStatusText(this.options.agent),
      ...approvalStatusLines(this.approvals.rules, this.approvals.sessionGrants(threadKey)),
    ].join('\n');
  }

  private reply(adapter: PlatformAdapter, replyTo: ReplyTarget, text: string): Promise<void> {
    return this.replies(adapter, replyTo).say(text);
  }

  /** The replies to `target`'s thread through `adapter`: in the outbox, in the thread's order. */
  private replies(adapter: PlatformAdapter, target: ReplyTarget): ThreadReplies {
    return new ThreadReplies(this.outbox, this.delivery(adapter, target.threadKey), adapter, target, this.logger.child({ thread: target.threadKey }));
  }

  private delivery(adapter: PlatformAdapter, threadKey: string): ThreadDelivery {
    let delivery = this.deliveries.get(threadKey);
    if (!delivery) {
      // Idle queues hold nothing: forget them so a quiet gateway keeps no state per thread.
      for (const [key, queue] of this.deliveries) if (!queue.busy) this.deliveries.delete(key);
      delivery = new ThreadDelivery({
        outbox: this.outbox,
        logger: this.logger.child({ thread: threadKey, platform: adapter.name }),
        signal: this.lifetime.signal,
        verdict: adapter.deliveryVerdict?.bind(adapter),
      });
      this.deliveries.set(threadKey, delivery);
    }
    return delivery;
  }

  private track(task: Promise<unknown>): void {
    const tracked = task.catch((error: unknown) => this.logger.error({ err: error }, 'background gateway task failed'));
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }
}

/** Waits for `task` at most `ms`; calls `onTimeout` when it gives up. */
async function within(task: Promise<unknown>, ms: number, onTimeout: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    const outcome = await Promise.race([task.then(() => 'done' as const, () => 'done' as const), timeout]);
    if (outcome === 'timeout') onTimeout();
  } finally {
    clearTimeout(timer);
  }
}
