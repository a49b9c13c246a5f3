import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import type { PairingStore } from '../../src/pairing/index.js';

/** What the settings page shows of a waiting stranger: never the code (a click approves it). */
export interface WaitingView {
  platform: string;
  userId: string;
  userName: string;
  /** How long they have waited, in whole minutes. */
  minutes: number;
}

/** The person the page approves or refuses. */
const WHO = z.object({ platform: z.string().min(1).max(40), userId: z.string().min(1).max(200) });

/**
 * The pairing panel's API under `/api/settings/pairing`: `GET` the strangers waiting with a
 * code, and (behind the settings routes' owner check) `POST approve` / `POST refuse` one of them.
 * The owner is logged in, so approving takes the person, not the typed code; the code still
 * decides inside the store, whose rate limit of wrong codes stays as it is.
 */
export function pairingRoutes(store: Pick<PairingStore, 'pending' | 'approve' | 'refuse'>, now: () => number = Date.now): Hono {
  const app = new Hono();
  const limit = bodyLimit({ maxSize: 4 * 1024 });
  app.get('/', (c) => {
    const at = now();
    const waiting: WaitingView[] = store.pending().map((request) => ({
      platform: request.platform,
      userId: request.userId,
      userName: request.userName,
      minutes: Math.max(0, Math.floor((at - request.createdAt) / 60_000)),
    }));
    return c.json({ waiting });
  });
  const readWho = async (body: Promise<unknown>) => WHO.safeParse(await body.catch(() => undefined));
  app.post('/approve', limit, async (c) => {
    const who = await readWho(c.req.json());
    if (!who.success) return c.json({ error: 'send {"platform", "userId"} as JSON' }, 400);
    const waiting = store.pending(who.data.platform).find((request) => request.userId === who.data.userId);
    if (!waiting) return c.json({ error: 'Nobody with that id waits on that platform now (the code expired, or it was answered already).' }, 404);
    const outcome = store.approve(who.data.platform, waiting.code, 'web chat settings');
    if (outcome.kind === 'approved') return c.json({ approved: true, userId: outcome.userId, userName: outcome.userName });
    if (outcome.kind === 'locked') return c.json({ error: `Too many wrong codes were tried on ${who.data.platform}: approvals there are locked until ${new Date(outcome.retryAt).toISOString()}.` }, 429);
    return c.json({ error: 'The code was no longer valid.' }, 409);
  });
  app.post('/refuse', limit, async (c) => {
    const who = await readWho(c.req.json());
    if (!who.success) return c.json({ error: 'send {"platform", "userId"} as JSON' }, 400);
    if (!store.refuse(who.data.platform, who.data.userId)) return c.json({ error: 'Nobody with that id waits on that platform now.' }, 404);
    return c.json({ refused: true });
  });
  return app;
}
