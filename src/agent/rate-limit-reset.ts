import { retryAfterMs } from '../shared/retry.js';

/** `1s`, `6m0s`, `20ms`, `1h2m3.5s` (OpenAI's x-ratelimit-reset-*) in ms. */
export function durationMs(text: string): number | undefined {
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0) {
    const seconds = Number.parseFloat(text);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
  }
  const unit = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
  return parts.reduce((sum, [, value, name]) => sum + Number.parseFloat(value) * unit[name as keyof typeof unit], 0);
}

/**
 * When a rate-limited endpoint (or key) may be asked again, in ms since the epoch: the
 * `retry-after` (or `retry-after-ms`) wait when the server gave one; else the reset of the
 * limits it says are used up (`anthropic-ratelimit-<limit>-reset` as a time,
 * `x-ratelimit-reset-<limit>` as a duration, each with its `-remaining` at 0), else the
 * latest reset it names. Undefined when it says none.
 */
export function rateLimitResetAt(headers: Headers | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const wait = retryAfterMs(headers, now);
  if (wait !== undefined) return now + wait;
  const exhausted: number[] = [];
  const all: number[] = [];
  headers.forEach((value, name) => {
    const anthropic = /^anthropic-ratelimit-(.+)-reset$/.exec(name);
    const openai = /^x-ratelimit-reset-(.+)$/.exec(name);
    let at: number | undefined;
    let remaining: string | null = null;
    if (anthropic) {
      const parsed = Date.parse(value);
      at = Number.isFinite(parsed) ? parsed : undefined;
      remaining = headers.get(`anthropic-ratelimit-${anthropic[1]}-remaining`);
    } else if (openai) {
      const ms = durationMs(value);
      at = ms === undefined ? undefined : now + ms;
      remaining = headers.get(`x-ratelimit-remaining-${openai[1]}`);
    }
    if (at === undefined) return;
    all.push(at);
    if (remaining !== null && Number.parseFloat(remaining) <= 0) exhausted.push(at);
  });
  const chosen = exhausted.length > 0 ? exhausted : all;
  return chosen.length > 0 ? Math.max(...chosen) : undefined;
}
