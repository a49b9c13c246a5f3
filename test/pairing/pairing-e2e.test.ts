import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { codeIn, hermesPairing, modelSaw, startTelegramGateway, testClock, type TestClock } from './telegram-gateway.js';

const ADA = 1001; // allow-listed and the platform's admin
const BOB = 2002; // allow-listed, not an admin
const EVE = 5005; // a stranger
const HOUR = 60 * 60_000;

let apis: FakeTelegramApi[] = [];
let gateways: RunningGateway[] = [];
let models: FakeOpenAI[] = [];
let home: string;
let clock: TestClock;

afterEach(async () => {
  for (const running of gateways) await running.stop();
  for (const model of models) await model.close();
  for (const api of apis) await api.close();
  gateways = [];
  models = [];
  apis = [];
  rmSync(home, { recursive: true, force: true });
});

async function start(extra: Record<string, unknown> = {}, api?: FakeTelegramApi, model?: FakeOpenAI): Promise<{ api: FakeTelegramApi; model: FakeOpenAI }> {
  const bot = api ?? (await new FakeTelegramApi().start());
  if (!api) apis.push(bot);
  const made = await startTelegramGateway({ home, api: bot, telegram: { dm_policy: 'pairing', admins: [String(ADA)], ...extra }, allowed: [ADA, BOB], clock, ...(model ? { model } : {}) });
  expect(made.running.report.started).toEqual(['telegram']);
  gateways.push(made.running);
  if (!model) models.push(made.model);
  return { api: bot, model: made.model };
}

function fresh(): void {
  home = mkdtempSync(join(tmpdir(), 'hermes-pairing-'));
  clock = testClock();
}

const texts = (api: FakeTelegramApi, chat: number) => api.sentTo(chat).map((sent) => sent.text);

/** The code the stranger was last given in `chat`. */
async function codeGiven(api: FakeTelegramApi, chat: number, count = 1): Promise<string> {
  await api.waitFor(() => texts(api, chat).filter((text) => codeIn(text)).length >= count, `pairing code #${count} in chat ${chat}`);
  const codes = texts(api, chat).map(codeIn).filter((code) => code !== undefined);
  return codes[codes.length - 1];
}

async function answered(api: FakeTelegramApi, chat: number, what: string): Promise<void> {
  await api.waitFor(() => texts(api, chat).some((text) => text.includes(what)), `"${what}" in chat ${chat}`);
}

describe('pairing end to end: hermes gateway on the fake Bot API, hermes pairing on the same state.db', () => {
  it('a stranger gets a code and the model is never asked; hermes pairing approve lets the next message through; revoke shuts it at once', async () => {
    fresh();
    const { api, model } = await start();
    api.injectMessage({ chatId: EVE, userId: EVE, firstName: 'Eve', text: 'hello there [E1]' });
    const code = await codeGiven(api, EVE);
    expect(code).toMatch(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{8}$/);
    expect(texts(api, EVE)[0]).toContain(`hermes pairing approve telegram ${code}`);
    // A second message: no new code, no reminder yet, and still nothing for the model.
    api.injectMessage({ chatId: EVE, userId: EVE, firstName: 'Eve', text: 'anyone? [E2]' });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'ping [A1]' });
    await answered(api, ADA, 'echo: ping [A1]');
    expect(texts(api, EVE)).toHaveLength(1);
    expect(modelSaw(model, '[E1]') || modelSaw(model, '[E2]')).toBe(false);

    const listed = await hermesPairing(home, ['list', 'telegram']);
    expect(listed.out).toContain(code);
    expect(listed.out).toContain(`id ${EVE}`);
    const approved = await hermesPairing(home, ['approve', 'telegram', code.toLowerCase()]);
    expect(approved).toEqual({ out: expect.stringContaining(`approved: Eve (telegram id ${EVE})`), code: 0 });

    api.injectMessage({ chatId: EVE, userId: EVE, text: 'let me in [E3]' });
    await answered(api, EVE, 'echo: let me in [E3]');
    expect(modelSaw(model, '[E2]')).toBe(false);
    // Paired is not admin: the admin commands stay closed.
    api.injectMessage({ chatId: EVE, userId: EVE, text: '/whoami' });
    await answered(api, EVE, 'your role is user');

    expect((await hermesPairing(home, ['revoke', 'telegram', String(EVE)])).code).toBe(0);
    api.injectMessage({ chatId: EVE, userId: EVE, text: 'still here? [E4]' });
    await codeGiven(api, EVE, 2);
    await sleep(300);
    expect(modelSaw(model, '[E4]')).toBe(false);
  }, 60_000);

  it('an approval from the CLI applies at once on every gateway that shares the store', async () => {
    fresh();
    const first = await start();
    const second = await start({}, undefined, first.model);
    first.api.injectMessage({ chatId: EVE, userId: EVE, firstName: 'Eve', text: 'hi [F1]' });
    const code = await codeGiven(first.api, EVE);
    // The other instance knows her waiting code: one per person, whichever instance she writes to.
    second.api.injectMessage({ chatId: EVE, userId: EVE, firstName: 'Eve', text: 'hi [F2]' });
    expect(await codeGiven(second.api, EVE)).toBe(code);
    expect((await hermesPairing(home, ['approve', 'telegram', code])).code).toBe(0);
    first.api.injectMessage({ chatId: EVE, userId: EVE, text: 'one [F3]' });
    second.api.injectMessage({ chatId: EVE, userId: EVE, text: 'two [F4]' });
    await answered(first.api, EVE, 'echo: one [F3]');
    await answered(second.api, EVE, 'echo: two [F4]');
    expect(modelSaw(first.model, '[F1]') || modelSaw(first.model, '[F2]')).toBe(false);
  }, 90_000);

  it('a code expires after an hour (the injected clock); a fourth waiting code is refused', async () => {
    fresh();
    const { api, model } = await start();
    api.injectMessage({ chatId: EVE, userId: EVE, text: 'hello [X1]' });
    const old = await codeGiven(api, EVE);
    clock.advance(HOUR + 60_000);
    api.injectMessage({ chatId: ADA, userId: ADA, text: `/pair approve ${old}` });
    await answered(api, ADA, 'No such code is waiting');
    expect((await hermesPairing(home, ['approve', 'telegram', old], clock)).code).toBe(1);
    api.injectMessage({ chatId: EVE, userId: EVE, text: 'again [X2]' });
    const renewed = await codeGiven(api, EVE, 2);
    expect(renewed).not.toBe(old);

    // Eve waits; two more strangers fill the three places; the fourth gets no code.
    for (const stranger of [6006, 7007]) {
      api.injectMessage({ chatId: stranger, userId: stranger, text: 'me too' });
      await codeGiven(api, stranger);
    }
    api.injectMessage({ chatId: 8008, userId: 8008, text: 'and me' });
    await answered(api, 8008, 'already waiting');
    expect(texts(api, 8008).some((text) => codeIn(text))).toBe(false);
    expect((await hermesPairing(home, ['list', 'telegram'], clock)).out.match(/^ {2}telegram [2-9A-Z]{8} /gm)).toHaveLength(3);
    expect(model.requests).toHaveLength(0);
  }, 60_000);

  it('a brute-force guesser is stopped: after five wrong codes even the right one is refused, without saying which part was wrong', async () => {
    fresh();
    const { api, model } = await start();
    api.injectMessage({ chatId: EVE, userId: EVE, text: 'hello [B1]' });
    const code = await codeGiven(api, EVE);
    // Wrong codes that share all but one character with the right one get the same answer as any other.
    const nearMiss = `${code.slice(0, 7)}${code[7] === '2' ? '3' : '2'}`;
    const guesses = [nearMiss, 'AAAAAAAA', code.slice(0, 7), `${code}X`, '22222222'];
    for (const [i, guess] of guesses.entries()) {
      api.injectMessage({ chatId: ADA, userId: ADA, text: `/pair approve ${guess}` });
      await api.waitFor(() => texts(api, ADA).length >= i + 1, `answer ${i + 1}`);
    }
    expect(new Set(texts(api, ADA))).toEqual(new Set(['No such code is waiting. Check the code (it lives one hour) and try again.']));
    api.injectMessage({ chatId: ADA, userId: ADA, text: `/pair approve ${code}` });
    await answered(api, ADA, 'Too many wrong codes');
    // The lock is in the store: the CLI is refused as well, and Eve is still a stranger.
    const cli = await hermesPairing(home, ['approve', 'telegram', code], clock);
    expect(cli.code).toBe(1);
    expect(cli.out).toContain('too many wrong codes');
    api.injectMessage({ chatId: EVE, userId: EVE, text: 'in yet? [B2]' });
    await sleep(500);
    expect(modelSaw(model, '[B2]')).toBe(false);
    // Once the window has passed the right code works.
    clock.advance(16 * 60_000);
    api.injectMessage({ chatId: ADA, userId: ADA, text: `/pair approve ${code}` });
    await answered(api, ADA, `Approved: Ada (id ${EVE})`);
  }, 60_000);

  it('admins: /whoami tells the role; a non-admin is refused /model <name>, /reload-mcp and /pair with why', async () => {
    fresh();
    const { api } = await start();
    api.injectMessage({ chatId: ADA, userId: ADA, text: '/whoami' });
    await answered(api, ADA, `user id ${ADA} on telegram; your role is admin`);
    api.injectMessage({ chatId: BOB, userId: BOB, text: '/whoami' });
    await answered(api, BOB, `user id ${BOB} on telegram; your role is user`);
    for (const [command, what] of [['/model other-model', 'change the model'], ['/reload-mcp', 'reload the MCP servers'], ['/pair list', 'approve pairing codes']]) {
      api.injectMessage({ chatId: BOB, userId: BOB, text: command });
      await answered(api, BOB, `Only an admin can ${what}`);
    }
    expect(texts(api, BOB).filter((text) => text.includes('platforms.telegram.admins'))).toHaveLength(3);
    // /model without a name only shows it: anyone may.
    api.injectMessage({ chatId: BOB, userId: BOB, text: '/model' });
    await answered(api, BOB, 'Model: fake-model');
    api.injectMessage({ chatId: ADA, userId: ADA, text: '/model other-model' });
    await answered(api, ADA, 'This thread now uses other-model');
  }, 60_000);
});
