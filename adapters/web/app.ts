import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { z } from 'zod';
import { errorMessage } from '../../src/shared/errors.js';
import { readApprovalButtonData, type ApprovalPress } from '../../src/gateway/approval-buttons.js';
import type { Asset } from './assets.js';
import { requireToken, sameOriginOnly } from './access.js';
import type { ThreadActivity } from './activity.js';
import { fileRoutes, type WebFiles } from './files.js';
import { settingsRoutes, type SettingsDeps } from './settings.js';
import type { LiveChannel } from './live-hub.js';
import type { TranscriptStore } from './transcript.js';
import type { LiveEvent, WebEntry } from './types.js';

/** Longest message the page may send, in characters. */
export const MAX_INPUT_CHARS = 100_000;
const KEEPALIVE_MS = 15_000;

/** What the page needs to know before the first message: is a model configured, and where to set one. */
export interface WebStatus {
  model: { configured: boolean; name: string; baseUrl: string; apiKeyEnv: string };
  configFile: string;
  envFile: string;
}

export interface WebAppDeps {
  store: TranscriptStore;
  hub: LiveChannel;
  activity: ThreadActivity;
  assets: Map<string, Asset>;
  /** The login token (see login.ts); empty means no login (`auth: none`, loopback only). */
  token: string;
  /** Where the token is kept, named on the 401 page. */
  tokenWhere?: string;
  /** `platforms.web.login_days`: how long the login cookie lasts (0: until the browser closes). */
  loginDays?: number;
  /** Bound to loopback: requests must name a loopback host (no DNS rebinding). */
  loopbackOnly: boolean;
  /** `platforms.web.max_streams`: open event streams at once; past it a 503. */
  maxStreams: number;
  status: () => WebStatus;
  /** Records the user's message (with the ids of files uploaded for it) and hands it to the gateway; resolves once it is taken. */
  submit: (threadId: string, text: string, files: string[]) => Promise<WebEntry>;
  /** Hands an approval button's press to the gateway; false when the thread has no such request waiting. */
  press: (threadId: string, press: ApprovalPress) => Promise<boolean>;
  /** Uploads waiting for their message, and files the agent sent. */
  files: WebFiles;
  /** `files.max_inbound_mb` in bytes. */
  maxUploadBytes: number;
  /** Aborts when the adapter stops: open event streams end. */
  signal: AbortSignal;
  /** The settings form's look-ups and save (the model, its key). */
  settings: SettingsDeps;
  /** Removes a thread's transcript and files. */
  deleteThread: (threadId: string) => Promise<void>;
}

/** A message from the page: its text and the ids of files uploaded for it (anything else in `files` is ignored). */
const messageBody = z.object({ text: z.string(), files: z.unknown().optional() });
/** A new title for a thread. */
const renameBody = z.object({ title: z.string() });
/** A press from the page: the data of the button pressed. */
const pressBody = z.object({ data: z.string() });

/** Longest thread title, in characters. */
const MAX_TITLE_CHARS = 120;

/**
 * The web chat's HTTP surface: the page and its assets, a small JSON API for threads and
 * messages, and one server-sent-event stream per open thread.
 */
export function createWebApp(deps: WebAppDeps): Hono {
  const app = new Hono();
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        // The <audio> player of voice answers (files of this origin only).
        mediaSrc: ["'self'"],
        connectSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        // Only DOMPurify's output may become HTML: a missed escape throws instead of running.
        requireTrustedTypesFor: ["'script'"],
        trustedTypes: ['dompurify'],
      },
      strictTransportSecurity: false,
    }),
  );
  app.use(sameOriginOnly({ loopbackOnly: deps.loopbackOnly }));
  app.use(requireToken(deps.token, deps.tokenWhere, { loginDays: deps.loginDays }));
  app.use('/api/*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });

  const serve = (path: string) => {
    const asset = deps.assets.get(path);
    return asset ? new Response(asset.body, { headers: { 'Content-Type': asset.type, 'Cache-Control': 'no-cache' } }) : undefined;
  };
  app.get('/', () => serve('/index.html')!);
  // Browsers ask for it on pages that name no icon (a 401, a raw API answer).
  app.get('/favicon.ico', () => serve('/icon.svg')!);

  app.get('/api/status', (c) => c.json(deps.status()));
  app.route('/api/settings', settingsRoutes(deps.settings));
  // ?q= keeps the threads whose title or messages contain the words.
  app.get('/api/threads', (c) => c.json({ threads: deps.store.listThreads(c.req.query('q') ?? '') }));
  app.post('/api/threads', (c) => c.json({ id: deps.store.createThread() }, 201));

  app.patch('/api/threads/:id', bodyLimit({ maxSize: 4096 }), async (c) => {
    const id = c.req.param('id');
    if (!deps.store.hasThread(id)) return c.json({ error: `no web thread "${id}"` }, 404);
    const body = renameBody.safeParse(await c.req.json<unknown>().catch(() => undefined));
    const title = body.success ? body.data.title : undefined;
    if (title === undefined || !title.trim() || title.length > MAX_TITLE_CHARS) {
      return c.json({ error: `send {"title": "…"} with 1 to ${MAX_TITLE_CHARS} characters` }, 400);
    }
    deps.store.rename(id, title);
    return c.json({ thread: deps.store.summary(id) });
  });

  app.delete('/api/threads/:id', async (c) => {
    const id = c.req.param('id');
    if (!deps.store.hasThread(id)) return c.json({ error: `no web thread "${id}"` }, 404);
    if (deps.activity.isBusy(id)) return c.json({ error: 'The agent is working in this thread: stop it first, then delete the thread.' }, 409);
    await deps.deleteThread(id);
    deps.hub.publish(id, { type: 'deleted' });
    return c.json({ deleted: id });
  });

  app.get('/api/threads/:id', (c) => {
    const id = c.req.param('id');
    if (!deps.store.hasThread(id)) return c.json({ error: `no web thread "${id}"` }, 404);
    return c.json({ id, entries: deps.store.entries(id), busy: deps.activity.isBusy(id) });
  });

  app.post('/api/threads/:id/messages', bodyLimit({ maxSize: 4 * MAX_INPUT_CHARS + 1024 }), async (c) => {
    const id = c.req.param('id');
    if (!deps.store.hasThread(id)) return c.json({ error: `no web thread "${id}"; start one with the New thread button` }, 404);
    const body = messageBody.safeParse(await c.req.json<unknown>().catch(() => undefined));
    const text = body.success ? body.data.text : undefined;
    const given = body.success ? body.data.files : undefined;
    const files = Array.isArray(given) ? given.filter((file): file is string => typeof file === 'string') : [];
    if (text === undefined || (!text.trim() && files.length === 0)) return c.json({ error: 'send {"text": "…"} with a non-empty message (or "files" you uploaded)' }, 400);
    if (text.length > MAX_INPUT_CHARS) return c.json({ error: `a message may have at most ${MAX_INPUT_CHARS} characters` }, 413);
    try {
      const entry = await deps.submit(id, text, files);
      return c.json({ entry }, 202);
    } catch (error) {
      const message = `The gateway did not take the message: ${errorMessage(error)}`;
      deps.activity.notice(id, message, 'error');
      return c.json({ error: message }, 500);
    }
  });

  // A press of an approval button: the button's data, authorized as any message of the thread.
  app.post('/api/threads/:id/approval', bodyLimit({ maxSize: 1024 }), async (c) => {
    const id = c.req.param('id');
    if (!deps.store.hasThread(id)) return c.json({ error: `no web thread "${id}"` }, 404);
    const body = pressBody.safeParse(await c.req.json<unknown>().catch(() => undefined));
    const press = body.success ? readApprovalButtonData(body.data.data) : undefined;
    if (!press) return c.json({ error: 'send {"data": "…"} with the data of one of the request\'s buttons' }, 400);
    try {
      if (!(await deps.press(id, press))) return c.json({ error: `no approval request ${press.requestId} is waiting in this thread` }, 409);
      return c.json({ taken: true }, 202);
    } catch (error) {
      const message = `The gateway did not take the answer: ${errorMessage(error)}`;
      deps.activity.notice(id, message, 'error');
      return c.json({ error: message }, 500);
    }
  });

  // Each open stream holds a connection and a listener: a bound keeps tabs (or a script on
  // this machine with the token) from holding them without end.
  let openStreams = 0;
  app.get('/api/threads/:id/events', (c) => {
    const id = c.req.param('id');
    if (!deps.store.hasThread(id)) return c.json({ error: `no web thread "${id}"` }, 404);
    if (openStreams >= deps.maxStreams) {
      return c.json(
        {
          error:
            `The web chat already has ${deps.maxStreams} live streams open (platforms.web.max_streams): ` +
            'close some of its tabs, or raise the limit.',
        },
        503,
      );
    }
    openStreams++;
    return streamSSE(c, async (stream) => {
      try {
        await follow(stream, id);
      } finally {
        openStreams--;
      }
    });
  });

  /** Sends the thread's snapshot, then its live events, until the page goes or the adapter stops. */
  async function follow(stream: SSEStreamingApi, id: string): Promise<void> {
    // Writes are chained so events leave in the order they happened.
    let chain = Promise.resolve();
    const send = (event: LiveEvent) => {
      chain = chain.then(() => stream.writeSSE({ event: event.type, data: JSON.stringify(event) })).catch(() => undefined);
    };
    // Snapshot and subscription in one synchronous step: no event falls between them.
    send({ type: 'snapshot', entries: deps.store.entries(id), busy: deps.activity.isBusy(id) });
    const unsubscribe = deps.hub.subscribe(id, send);
    const keepalive = setInterval(() => {
      chain = chain.then(() => stream.write(': keepalive\n\n')).then(() => undefined).catch(() => undefined);
    }, KEEPALIVE_MS);
    let stop = () => {};
    try {
      await new Promise<void>((resolve) => {
        stop = resolve;
        stream.onAbort(resolve);
        if (stream.aborted || deps.signal.aborted) resolve();
        deps.signal.addEventListener('abort', stop, { once: true });
      });
    } finally {
      deps.signal.removeEventListener('abort', stop);
      clearInterval(keepalive);
      unsubscribe();
    }
  }

  app.route('/api/threads', fileRoutes({ store: deps.store, files: deps.files, maxUploadBytes: deps.maxUploadBytes }));

  // The remaining page files and vendored libraries, by exact path; nothing else is served.
  app.get('*', (c) => serve(c.req.path) ?? c.text('Not found\n', 404));
  return app;
}
