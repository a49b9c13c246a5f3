import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { createSettings, liveConfig, liveEnv, modelKeyProblem, portRangeText, readPort, SettingsStore, type LoadedConfig } from '../../config/index.js';
import { ConfigError } from '../../shared/errors.js';
import type { Gateway, StartReport } from '../../gateway/index.js';
import { loadForCli } from '../common.js';
import { registerGatewayInstall } from './gateway-install.js';

/** How long shutdown may take before the process exits anyway. */
const EXIT_DEADLINE_MS = 10_000;

export interface RunningGateway {
  gateway: Gateway;
  report: StartReport;
  /** Stops taking messages, aborts turns, disposes kernels, closes connections. */
  stop(): Promise<void>;
}

export interface StartGatewayOptions {
  env?: NodeJS.ProcessEnv;
  /** Lines for the operator (stdout in the CLI). */
  print?: (line: string) => void;
  /** The clock of pairing codes and the bot-message limit (tests move it). */
  now?: () => number;
}

/**
 * Builds the agent and the adapters of every platform that has its tokens, starts them and
 * returns the running gateway. It runs with no platform at all (nothing to talk to yet).
 */
export async function startGateway(loaded: LoadedConfig, options: StartGatewayOptions = {}): Promise<RunningGateway> {
  // One snapshot of the settings; a reload swaps it, and what holds `config` or `env` reads the current one.
  const store = new SettingsStore(createSettings({ ...loaded, env: options.env ?? loaded.env ?? {} }));
  // A model key variable that is not set stops the start with its name (the same check refuses it on a reload).
  const keyProblem = modelKeyProblem(store.current().config.model, store.current().env);
  if (keyProblem) throw new ConfigError(`${loaded.paths.config}: ${keyProblem}`);
  const config = liveConfig(store);
  const env = liveEnv(store);
  const print = options.print ?? (() => {});
  const [{ createLogger }, { createAgent }, { Gateway, approvalQueueFor, OutboxStore, liveModelClient }, { buildAdapters, knownPlatforms }, { watchConfig }] = await Promise.all([
    import('../../shared/logger.js'),
    import('../../agent/index.js'),
    import('../../gateway/index.js'),
    import('../../../adapters/index.js'),
    import('../../config/watch.js'),
  ]);
  const [{ CronService }, { ToolRegistry, scriptTools }, { stateLocationFrom }] = await Promise.all([
    import('../../cron/index.js'),
    import('../../tools/index.js'),
    import('../../sessions/index.js'),
  ]);
  const { paths } = loaded;
  const logger = createLogger({ file: paths.logFile, level: config.logging.level, env });
  // state.db, or the PostgreSQL database several instances share (sessions.store), opened before
  // anything else starts so that a bad address stops the start cleanly. Replies wait there until
  // the platform confirmed them: a restart delivers what is left.
  const state = stateLocationFrom(config, paths, env);
  const outbox = OutboxStore.open(state);
  // Pairing codes and approved people live with the sessions: every instance and `hermes pairing` read them.
  const { PairingStore } = await import('../../pairing/index.js');
  const pairing = PairingStore.open(state, options.now ? { now: options.now } : {});
  // This instance alone, or several on one Redis: chosen here, once; each part goes to what needs it
  // (the gateway its threads, the platforms their event claims and rates, the scheduler its job claims).
  const { connectRedisCoordination, inProcessCoordination } = await import('../../coordination/index.js');
  const coordination = config.coordination.backend === 'redis' ? await connectRedisCoordination(config, env, logger) : inProcessCoordination();
  // The web chat's live events, shared with the pages open on the other instances when there are any.
  const { webLiveEvents } = await import('../../../adapters/web/index.js');
  const webLive = config.platforms.web.enabled ? await coordination.liveHub('web', webLiveEvents) : undefined;
  // The model follows config changes (the web chat's settings, an edited config.yaml) without a restart.
  // Scheduled jobs: the model gets the cronjob tool; the scheduler starts once the platforms run.
  // (It reads the outbox made below only once a turn calls the tool.)
  const cronOutbox = { latestTarget: (threadKey: string) => outbox.latestTarget(threadKey), parts: (id: string) => outbox.parts(id) };
  const cron = config.cron.enabled ? new CronService({ config, logger, stateDb: state, outbox: cronOutbox }) : undefined;
  const agent = await createAgent({ ...loaded, config, env }, {
    logger,
    modelClient: liveModelClient({ model: config.model, logger, env }),
    ...(cron ? { registry: new ToolRegistry([...scriptTools(), cron.tool]) } : {}),
  });
  // "/approve always" rules survive restarts here.
  const approvals = approvalQueueFor(config, { rulesFile: join(paths.home, 'approvals.yaml'), logger });
  const gateway = new Gateway({ agent, config, logger, env, approvals, outbox, router: coordination.threads, pairing, ...(options.now ? { now: options.now } : {}) });
  coordination.threads.attach(gateway);
  // config.yaml and .env are watched: hot keys apply at once; the rest is named as needing a restart.
  const watcher = watchConfig({
    store,
    ...(options.env ? { exportTo: options.env } : {}),
    logger,
    onChange: ({ applied, needsRestart }) => {
      if (applied.length > 0) print(`hermes gateway: applied ${applied.join(', ')}`);
      if (needsRestart.length > 0) print(`hermes gateway: changed ${needsRestart.join(', ')}: restart the gateway for these`);
    },
  });
  let adapters;
  try {
    adapters = buildAdapters({ config, paths, env, logger, announce: print, reloadSettings: () => watcher.reload(), coordination, pairing, ...(webLive?.shared ? { webSharing: { live: webLive } } : {}) });
  } catch (error) {
    watcher.close();
    await cron?.stop();
    await agent.close();
    await coordination.close();
    throw error;
  }
  for (const adapter of adapters) gateway.register(adapter);
  const report = await gateway.start();
  cron?.start({
    agent,
    gateway,
    audienceOf: (platform) => adapters.find((adapter) => adapter.name === platform)?.audience ?? 'others',
    // Several instances share the jobs: each scheduled run is claimed by one of them.
    claims: coordination.jobClaims,
  });
  const { model, backend, platformBackend, isolationWarning } = agent.describe();
  const platformPart = platformBackend && platformBackend !== backend ? ` (sessions from Slack, Discord and Telegram: ${platformBackend})` : '';
  print(`hermes gateway: model ${model || '(none configured: set model.name)'}, backend ${backend}${platformPart}, log ${paths.logFile}`);
  for (const name of report.started) print(`  started ${name}`);
  for (const failure of report.failed) print(`  could not start ${failure.name}: ${failure.error}`);
  const idle = knownPlatforms().filter((name) => !report.started.includes(name) && !report.failed.some((f) => f.name === name));
  if (idle.length > 0) print(`  not started (disabled or no tokens): ${idle.join(', ')}`);
  // Said loudly only when someone other than this machine's user can reach the bot.
  const othersReach = adapters.some((adapter) => (adapter.audience ?? 'others') === 'others' && report.started.includes(adapter.name));
  if (isolationWarning && othersReach) print(`  WARNING: ${isolationWarning}`);
  if (report.started.length === 0) {
    print('  no platform is running; set TELEGRAM_BOT_TOKEN, SLACK_BOT_TOKEN or DISCORD_BOT_TOKEN (see README) and restart');
  }
  logger.info({ started: report.started, failed: report.failed }, 'gateway running');
  return {
    gateway,
    report,
    stop: async () => {
      watcher.close();
      // Jobs first: their runs end (scripts killed) while the agent is still there to settle them.
      await cron?.stop();
      await gateway.stop(EXIT_DEADLINE_MS - 1000);
      await coordination.close();
      outbox.close();
      pairing.close();
    },
  };
}

/** `--web-port`: a port number, 0 to 65535. */
function webPort(value: string): number {
  const port = readPort(value, { anyFree: true });
  if (port === undefined) throw new InvalidArgumentError(`expected ${portRangeText({ anyFree: true })}, got "${value}"`);
  return port;
}

export function registerGatewayCommand(program: Command): void {
  const gateway = program
    .command('gateway')
    .description('run the chat gateway: every platform that has its tokens, and the local web chat')
    // Several instances share one config.yaml: each needs a web chat port of its own.
    .option('--web-port <port>', "this instance's web chat port (platforms.web.port); 0 picks a free one", webPort)
    .action(async (options: { webPort?: number }, command: Command) => {
      const loaded = loadForCli(command, options.webPort === undefined ? undefined : { platforms: { web: { port: options.webPort } } });
      // Nothing else may hold the event loop open when no platform runs.
      const keepAlive = setInterval(() => {}, 1 << 30);
      const starting = startGateway(loaded, { print: (line) => console.log(line) });
      let stopping = false;
      // Installed before the gateway has started, so a signal during start-up is not lost.
      const shutdown = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        console.log(`hermes gateway: ${signal}, shutting down`);
        setTimeout(() => {
          console.error('hermes gateway: shutdown took too long; exiting anyway');
          process.exit(1);
        }, EXIT_DEADLINE_MS).unref();
        starting
          .then((running) => running.stop())
          .catch((error: unknown) => console.error(`hermes gateway: shutdown failed: ${error instanceof Error ? error.message : String(error)}`))
          .finally(() => {
            clearInterval(keepAlive);
            console.log('hermes gateway: stopped');
            // Open keep-alive sockets of the platform clients must not hold the exit up.
            process.exit(process.exitCode ?? 0);
          });
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
      try {
        await starting;
      } catch (error) {
        clearInterval(keepAlive);
        process.off('SIGTERM', shutdown);
        process.off('SIGINT', shutdown);
        throw error;
      }
    });
  registerGatewayInstall(gateway);
}
