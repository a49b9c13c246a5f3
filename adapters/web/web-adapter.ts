import { createServer, type Server } from 'node:http';
import type { PairingStore } from '../../src/pairing/index.js';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import type { AgentEvent } from '../../src/agent/types.js';
import type { HermesConfig } from '../../src/config/schema.js';
import { defaultConfig } from '../../src/config/load.js';
import { setConfigValues } from '../../src/config/edit.js';
import { setDotEnvValue } from '../../src/config/dotenv.js';
import type { ConfigChange } from '../../src/config/settings-store.js';
import { savedKeyFor } from '../../src/config/key-scope.js';
import type { HermesPaths } from '../../src/config/paths.js';
import type {
  ApprovalCapability,
  FileCapability,
  InboundAttachment,
  MessageHandler,
  OutboundFile,
  PlatformAdapter,
  StreamedMessage,
  StreamingCapability,
  TurnNotice,
  VoiceCapability,
} from '../../src/gateway/types.js';
import type { ApprovalPress } from '../../src/gateway/approval-buttons.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import { errorMessage } from '../../src/shared/errors.js';
import { isLoopbackHost, WebChatError } from './access.js';
import { ThreadActivity } from './activity.js';
import { createWebApp, type WebStatus } from './app.js';
import { forgetThreadFiles, previewable, WebFiles, WEB_FILE_MAX_BYTES } from './files.js';
import { PROVIDERS, type ModelSettings, type ProviderId, type SettingsView } from './settings.js';
import { loadAssets } from './assets.js';
import { LiveHub, type LiveChannel } from './live-hub.js';
import { resolveWebLogin } from './login.js';
import { TranscriptStore } from './transcript.js';
import type { FileRef, WebEntry, WebReplyTarget } from './types.js';
import { WEB_THREAD, webThreadKey } from './thread-ref.js';
import { webConfig } from './config.js';

export interface WebAdapterOptions {
  /** The loaded configuration: `platforms.web` and, for the page's set-up help, `model`. */
  config: Pick<HermesConfig, 'platforms' | 'model'> & Partial<Pick<HermesConfig, 'files'>>;
  /** HERMES_HOME paths: transcripts go under `<home>/web/threads/`. */
  paths: Pick<HermesPaths, 'home' | 'config' | 'env'>;
  /** Where API keys are read: the settings' environment. */
  env?: NodeJS.ProcessEnv;
  /**
   * The running gateway's settings reload (its config watcher): a saved form applies through
   * a new settings snapshot. Without it (a web chat on its own) the form's values are written
   * into `config.model` and `env` as given.
   */
  reloadSettings?: () => ConfigChange;
  logger?: Logger;
  /** The pairing store: the settings page approves or refuses waiting strangers. */
  pairing?: PairingStore;
  /**
   * Called once the server listens, with the address to print (`openUrl` carries the token)
   * and a warning to print when the login is off.
   */
  onListening?: (info: { url: string; openUrl: string; warning?: string }) => void;
  /** Several instances serve this web chat behind one load balancer (`coordination.backend: redis`). */
  sharing?: WebSharing;
}

/**
 * What several instances sharing one HERMES_HOME need for one web chat: a channel that
 * carries each thread's live events to the others' pages. Given one, the transcripts are
 * read again wherever another instance appended to them.
 */
export interface WebSharing {
  live: LiveChannel;
}

/** The page re-renders a streaming answer at most this often. */
const WEB_STREAM_INTERVAL_MS = 50;

/** The user on the other side of the page; the web chat has one (it is local or token-guarded). */
const WEB_USER = { id: 'web-local', name: 'You' } as const;

/**
 * The local web chat as a platform adapter: an HTTP server (Hono on node:http) serving one
 * page, whose threads are sessions keyed `web:<id>`. Replies arrive through `send`, live tool
 * activity and turn notices through `onAgentEvent`; both reach the page over server-sent events.
 */
export class WebAdapter implements PlatformAdapter<WebReplyTarget> {
  readonly name = 'web';
  readonly thread = WEB_THREAD;
  /** Only this machine's user reaches it: loopback, behind the token. */
  readonly audience = 'owner' as const;
  /** The page shows long answers whole; the gateway need not split them. */
  readonly maxMessageLength = 100_000;
  /** A reply streams into one entry of the page as the model writes it. */
  readonly streaming = { open: (target) => this.openStream(target) } satisfies StreamingCapability<WebReplyTarget>;
  /** The request's bubble has the buttons; it says how it ended and loses them (the page has no textual `edit`). */
  readonly approvals = {
    ask: (to, text, id) => this.askApproval(to, text, id),
    settle: (to, messageId, text) => this.settleApproval(to, messageId, text),
  } satisfies ApprovalCapability<WebReplyTarget>;
  /** Files the agent sends are kept on this machine's disk, up to 256 MiB each. */
  readonly files = {
    maxBytes: WEB_FILE_MAX_BYTES,
    send: (to, file) => this.sendFile(to, file),
    reopen: (ref) => this.reopenAttachment(ref),
  } satisfies FileCapability<WebReplyTarget>;
  // No `edit`: the gateway's textual tool-progress message needs it, and the page shows
  // tool activity itself (onAgentEvent), so it would only be shown twice.

  private readonly store: TranscriptStore;
  private readonly fileStore: WebFiles;
  private readonly hub: LiveChannel;
  private readonly activity: ThreadActivity;
  private readonly logger: Logger;
  private server: Server | undefined;
  private handler: MessageHandler<WebReplyTarget> | undefined;
  private stopping: AbortController | undefined;
  private address: { url: string; openUrl: string } | undefined;

  constructor(private readonly options: WebAdapterOptions) {
    this.hub = options.sharing?.live ?? new LiveHub();
    const threads = join(options.paths.home, 'web', 'threads');
    // Shared: a call still running is live while a turn runs in its thread on any instance.
    this.store = options.sharing ? new TranscriptStore(threads, { turnRunning: (id) => this.activity.isBusy(id) }) : new TranscriptStore(threads);
    this.fileStore = new WebFiles(join(options.paths.home, 'web', 'files'));
    this.activity = new ThreadActivity(this.store, this.hub);
    this.logger = (options.logger ?? silentLogger()).child({ platform: 'web' });
  }

  /** The page's address once started (`http://127.0.0.1:8787/`). */
  get url(): string | undefined {
    return this.address?.url;
  }

  /** The address to open in a browser: with `?token=…` unless the login is off (`auth: none`). */
  get openUrl(): string | undefined {
    return this.address?.openUrl;
  }

  async start(handler: MessageHandler<WebReplyTarget>, signal: AbortSignal): Promise<void> {
    if (this.server) return;
    const web = webConfig(this.options.config);
    const { host, port } = web;
    const login = resolveWebLogin(web, this.options.paths.home);
    this.handler = handler;
    this.stopping = new AbortController();
    const app = createWebApp({
      store: this.store,
      hub: this.hub,
      activity: this.activity,
      assets: loadAssets(),
      token: login.token,
      tokenWhere: login.where,
      loginDays: web.login_days,
      loopbackOnly: isLoopbackHost(host),
      maxStreams: web.max_streams,
      status: () => this.status(),
      submit: (threadId, text, files) => this.submit(threadId, text, files),
      press: (threadId, press) => this.press(threadId, press),
      files: this.fileStore,
      maxUploadBytes: Math.floor((this.options.config.files?.max_inbound_mb ?? 20) * 1024 * 1024),
      signal: this.stopping.signal,
      settings: {
        ownerOnly: login.token !== '',
        current: () => this.settingsView(login.token !== ''),
        savedKey: (provider, baseUrl) => savedKeyFor(PROVIDERS[provider].apiKeyEnv, baseUrl, this.options.config.model, this.env),
        save: (settings) => this.saveSettings(settings),
        ...(this.options.pairing ? { pairing: this.options.pairing } : {}),
      },
      deleteThread: async (threadId) => {
        this.store.delete(threadId);
        await forgetThreadFiles(join(this.options.paths.home, 'web', 'files'), threadId);
      },
    });
    const server = createServer(getRequestListener(app.fetch));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new WebChatError(
            'WEB_LISTEN_FAILED',
            `web chat: cannot listen on ${host}:${port} (${error.code ?? errorMessage(error)}); ` +
              'set platforms.web.port to a free port, or platforms.web.enabled: false to turn the web chat off.',
            { cause: error },
          ),
        ),
      );
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    const bound = server.address() as AddressInfo;
    const shownHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    const url = `http://${shownHost}:${bound.port}/`;
    this.address = { url, openUrl: login.token ? `${url}?token=${encodeURIComponent(login.token)}` : url };
    this.logger.info({ url, token: login.where }, 'web chat listening');
    if (login.warning) this.logger.warn(login.warning);
    this.options.onListening?.({ ...this.address, warning: login.warning });
    signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    // End the open event streams cleanly, then drop whatever connection is left.
    this.stopping?.abort();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      const idle = setTimeout(() => server.closeIdleConnections(), 50);
      const force = setTimeout(() => server.closeAllConnections(), 1000);
      server.once('close', () => (clearTimeout(idle), clearTimeout(force)));
    });
    this.logger.info('web chat stopped');
  }

  async send(replyTo: WebReplyTarget, text: string): Promise<{ messageId: string }> {
    return { messageId: this.activity.reply(replyTo.threadId, text) };
  }

  /** Voice answers (`/voice on`): an OGG Opus file the page shows with an <audio> player. */
  readonly voice: VoiceCapability<WebReplyTarget> = {
    sendVoice: (target, voice) => this.sendFile(target, { name: 'answer.ogg', mimeType: 'audio/ogg', size: voice.ogg.length, open: async () => Readable.from([voice.ogg]) }),
  };

  /** Keeps the file and shows it in the thread: a picture inline (PNG, JPEG, GIF, WebP), and a download link. */
  private async sendFile(replyTo: WebReplyTarget, file: OutboundFile): Promise<{ messageId: string }> {
    const { threadId } = replyTo;
    const kept = await this.fileStore.keep(threadId, file);
    const url = `/api/threads/${threadId}/files/${kept.id}`;
    return { messageId: this.activity.file(threadId, { file: kept, url, preview: previewable(kept.mimeType), ...(file.caption ? { caption: file.caption } : {}) }) };
  }

  /** A reply streams into one entry of the page as the model writes it; its final text is that entry. */
  private openStream(target: WebReplyTarget): StreamedMessage {
    const { threadId } = target;
    let id: string | undefined;
    return {
      minIntervalMs: WEB_STREAM_INTERVAL_MS,
      get messageId() {
        return id;
      },
      update: async (text) => {
        id = this.activity.streamText(threadId, text);
      },
      finish: async (text) => ({ messageId: this.activity.reply(threadId, text) }),
    };
  }

  /** Shows the request with the buttons of `APPROVAL_BUTTONS`; a press comes back through `press` as the typed answer. */
  private async askApproval(replyTo: WebReplyTarget, text: string, requestId: string): Promise<{ messageId: string }> {
    return { messageId: this.activity.approval(replyTo.threadId, text, requestId) };
  }

  /**
   * A press of an approval button on the page: handed to the gateway as the page's user's
   * message in this thread with the typed `approval`, like any message of the thread. A press
   * naming a request this thread has not waiting (a forged or stale one) goes no further:
   * false.
   */
  private async press(threadId: string, press: ApprovalPress): Promise<boolean> {
    const handler = this.handler;
    if (!handler) throw new WebChatError('WEB_NOT_STARTED', 'web chat: not started');
    if (!this.activity.isWaitingApproval(threadId, press.requestId)) {
      this.logger.warn({ thread: threadId, request: press.requestId }, 'refused an approval press for a request this thread has not waiting');
      return false;
    }
    const threadKey = webThreadKey(threadId);
    await handler({
      platform: 'web',
      threadKey,
      chat: { id: threadId, type: 'dm' },
      user: { ...WEB_USER },
      text: '',
      messageId: `press-${press.requestId}-${press.choice}`,
      replyTo: { threadKey, threadId },
      approval: press,
    });
    return true;
  }

  /** The request's bubble says how it ended and loses its buttons (the page has no textual `edit`). */
  private async settleApproval(replyTo: WebReplyTarget, messageId: string, text: string): Promise<void> {
    this.activity.settleApproval(replyTo.threadId, messageId, text);
  }

  onAgentEvent(replyTo: WebReplyTarget, event: AgentEvent | TurnNotice): void {
    const { threadId } = replyTo;
    try {
      this.activity.agentEvent(threadId, event);
    } catch (error) {
      // Rendering must never break a turn: the answer still arrives through send().
      this.logger.warn({ err: errorMessage(error), event: event.type }, 'web chat could not record an agent event');
    }
  }

  /** An upload another instance received (passed with its message): read from the inbox all instances share. */
  private async reopenAttachment(ref: unknown): Promise<InboundAttachment | undefined> {
    return this.fileStore.reopen(ref);
  }

  private async submit(threadId: string, text: string, fileIds: string[] = []): Promise<WebEntry> {
    const handler = this.handler;
    if (!handler) throw new WebChatError('WEB_NOT_STARTED', 'web chat: not started');
    const attachments: InboundAttachment[] = [];
    const refs: FileRef[] = [];
    for (const id of fileIds) {
      const attachment = await this.fileStore.attachment(id);
      if (!attachment) throw new WebChatError('WEB_NO_UPLOAD', `web chat: no uploaded file "${id}"; upload it again`);
      attachments.push(attachment);
      refs.push({ id, name: attachment.name ?? 'file', mimeType: attachment.mimeType ?? 'application/octet-stream', size: attachment.size ?? 0 });
    }
    // A bare /stop (the Stop button, or typed) is a control, not a message: no "You: /stop" bubble.
    const control = refs.length === 0 && /^\/stop$/i.test(text.trim());
    const entry: WebEntry = control ? { kind: 'user', id: `u-stop-${Date.now().toString(36)}`, at: Date.now(), text } : this.activity.userMessage(threadId, text, undefined, refs);
    // Other instances' pages hear of the message before its answer (which may come from one of them).
    if (this.options.sharing) await this.hub.flushed();
    const threadKey = webThreadKey(threadId);
    const replyTo: WebReplyTarget = { threadKey, threadId };
    await handler({
      platform: 'web',
      threadKey,
      chat: { id: threadId, type: 'dm' },
      user: { ...WEB_USER },
      text,
      messageId: entry.id,
      replyTo,
      ...(attachments.length > 0 ? { attachments } : {}),
    });
    return entry;
  }

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? {};
  }

  /** The model settings as the form shows them, without the key. */
  private settingsView(canSave: boolean): SettingsView {
    const { model } = this.options.config;
    return {
      provider: providerOf(model),
      baseUrl: model.base_url,
      model: model.name,
      apiKeyEnv: model.api_key_env,
      keySet: Boolean(this.env[model.api_key_env]),
      canSave,
    };
  }

  /**
   * Saves the form: the key to HERMES_HOME/.env (0600), the model to config.yaml, then the
   * running settings are reloaded so the next message uses them (the gateway's model client
   * follows the current snapshot).
   */
  private saveSettings(settings: ModelSettings): { needsRestart: string[] } {
    const apiKeyEnv = PROVIDERS[settings.provider].apiKeyEnv;
    if (settings.apiKey) setDotEnvValue(this.options.paths.env, apiKeyEnv, settings.apiKey);
    const values = { 'model.provider': PROVIDERS[settings.provider].api, 'model.base_url': settings.baseUrl, 'model.name': settings.model, 'model.api_key_env': apiKeyEnv };
    const next = setConfigValues(this.options.paths.config, values);
    let needsRestart: string[] = [];
    if (this.options.reloadSettings) {
      needsRestart = this.options.reloadSettings().needsRestart.filter((key) => key in values);
    } else {
      if (settings.apiKey) this.env[apiKeyEnv] = settings.apiKey;
      const { provider, base_url, name, api_key_env } = next.model;
      Object.assign(this.options.config.model, { provider, base_url, name, api_key_env });
    }
    // Names only: the key stays out of the log.
    this.logger.info({ provider: settings.provider, baseUrl: settings.baseUrl, model: settings.model, apiKeyEnv, keySaved: Boolean(settings.apiKey) }, 'model settings saved from the web chat');
    return { needsRestart };
  }

  private status(): WebStatus {
    const { model } = this.options.config;
    return {
      model: { configured: model.name.trim() !== '', name: model.name, baseUrl: model.base_url, apiKeyEnv: model.api_key_env },
      configFile: this.options.paths.config,
      envFile: this.options.paths.env,
    };
  }
}

/** Which of the form's providers the settings are (anything unknown is an OpenAI-compatible URL). */
function providerOf(model: HermesConfig['model']): ProviderId {
  if (model.provider === 'anthropic') return 'anthropic';
  if (model.api_key_env === PROVIDERS.openrouter.apiKeyEnv) return 'openrouter';
  if (model.api_key_env === PROVIDERS.ollama.apiKeyEnv) return 'ollama';
  if (model.api_key_env === PROVIDERS.openai.apiKeyEnv && model.base_url === defaultConfig().model.base_url) return 'openai';
  return 'custom';
}

/** Builds the web chat adapter; `start` refuses a non-loopback host without a token, and `auth: none` off loopback. */
export function createWebAdapter(options: WebAdapterOptions): WebAdapter {
  return new WebAdapter(options);
}

/**
 * The factory `adapters/index.ts` registers: the web chat when `platforms.web.enabled`, with
 * its address announced to the operator once it listens.
 */
export function createWebChat(options: {
  config: WebAdapterOptions['config'];
  paths: WebAdapterOptions['paths'];
  env?: NodeJS.ProcessEnv;
  reloadSettings?: () => ConfigChange;
  logger?: Logger;
  announce?: (line: string) => void;
  /** Several instances behind one load balancer. */
  webSharing?: WebSharing;
  pairing?: PairingStore;
}): WebAdapter | undefined {
  if (!webConfig(options.config).enabled) return undefined;
  return new WebAdapter({
    config: options.config,
    paths: options.paths,
    env: options.env,
    ...(options.reloadSettings ? { reloadSettings: options.reloadSettings } : {}),
    logger: options.logger,
    ...(options.webSharing ? { sharing: options.webSharing } : {}),
    ...(options.pairing ? { pairing: options.pairing } : {}),
    onListening: ({ openUrl, warning }) => {
      options.announce?.(`  web chat: ${openUrl}  (open it in a browser)`);
      if (warning) options.announce?.(`  web chat: WARNING: ${warning}`);
    },
  });
}
