import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/environments/index.js';
import type { FakeReply, RecordedRequest } from '../fakes/openai-server.js';
import { e2eModel, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { ownerOf, postUpdate, textUpdate } from './gateway-processes.js';
import { instancesCanRun, useTelegramInstances } from './telegram-instances.js';

/*
 * Two `hermes gateway` processes on one Redis and one state.db. A script on A asks for approval
 * of a risky command; the answer is sent to B. The command deletes a throwaway folder in the
 * test's temp HERMES_HOME, so whether it ran is on disk.
 */
const runs = instancesCanRun('the approvals-across-instances test');

const CHATS = { button: 1001, typed: 2002, deny: 3003, stop: 4004 } as const;

/**
 * `[RISKY:<name>]` makes a script that writes its process group to `<name>.pgid`, then asks
 * terminal() for `rm -rf ../<name>` run in `<home>/work` (a recursive delete: it asks first);
 * anything else is the shared e2e model.
 */
function riskyModel(home: string): FakeReply {
  const rest = e2eModel(home);
  return {
    respond: (request: RecordedRequest) => {
      const last = request.body.messages[request.body.messages.length - 1];
      const risky = last.role === 'user' ? /\[RISKY:(\w+)\]/.exec(String(last.content)) : null;
      if (!risky || !('respond' in rest)) return 'respond' in rest ? rest.respond(request) : rest;
      const name = risky[1];
      const pgid = JSON.stringify(join(home, `${name}.pgid`));
      const code = [
        'import os',
        'from hermes_tools import terminal',
        `with open(${pgid} + '.tmp', 'w') as f:`,
        '    f.write(str(os.getpgrp()))',
        `os.replace(${pgid} + '.tmp', ${pgid})`,
        `result = terminal('rm -rf ../${name} && echo removed-${name}', workdir=${JSON.stringify(join(home, 'work'))})`,
        'print(result)',
        '',
      ].join('\n');
      return { toolCalls: [{ name: 'execute_code', arguments: { code } }] };
    },
  };
}

describe.runIf(runs)('approvals and /stop answered on another instance than the one running the script', () => {
  const fx = useTelegramInstances({
    name: 'approvals-across',
    keyVar: 'HERMES_APPROVALS_ACROSS_KEY',
    allowed: Object.values(CHATS),
    config: { approvals: { mode: 'on' } },
    model: riskyModel,
    prepare: (home) => mkdirSync(join(home, 'work')),
    count: 2,
  });
  const { instances } = fx;
  const a = () => instances[0];
  const b = () => instances[1];

  const texts = (chat: number) => fx.api.sentTo(chat).map((sent) => sent.text);
  /** The model's answer after the script (the approval request shows the command too, so only this counts). */
  const answer = (chat: number) => texts(chat).find((text) => text.startsWith('finished:'));
  /** A throwaway folder with a marker in it, next to the script's working folder. */
  const victim = (name: string) => {
    const dir = join(fx.home, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'marker'), 'x');
    return join(dir, 'marker');
  };
  /** Starts `[RISKY:name]` on A and waits for its approval request in the chat. */
  const askOnA = async (chat: number, name: string) => {
    expect(await postUpdate(a(), textUpdate(chat, `clean up [RISKY:${name}]`))).toBe(200);
    const pgid = await waitForPgid(fx.home, name);
    expect(ownerOf(pgid, instances), 'the script runs under A').toBe(a());
    await fx.api.waitFor(() => fx.api.sentTo(chat).some((sent) => (sent.reply_markup?.inline_keyboard ?? []).flat().some((button) => /^hermes:approval:[0-9a-f]{16}:once$/.test(button.callback_data ?? ''))), 'the approval request');
    return fx.api.sentTo(chat).find((sent) => (sent.reply_markup?.inline_keyboard ?? []).length > 0)!;
  };

  it('a press of the Approve button, sent to B, approves the request of the script on A, and the command runs there', async () => {
    const marker = victim('pressed');
    const request = await askOnA(CHATS.button, 'pressed');
    expect(existsSync(marker)).toBe(true);
    const press = fx.api.injectCallbackQuery({ messageId: request.message_id, data: request.reply_markup?.inline_keyboard[0]?.[0]?.callback_data ?? 'no button', userId: CHATS.button });
    expect(await postUpdate(b(), press)).toBe(200);
    await fx.api.waitFor(() => answer(CHATS.button) !== undefined, 'the script’s answer');
    expect(answer(CHATS.button)).toContain('removed-pressed');
    expect(existsSync(marker)).toBe(false);
  }, 90_000);

  it.each([
    { command: '/approve', chat: CHATS.typed, tag: 'typed', runs: true, what: 'approves the request of the script on A' },
    { command: '/deny', chat: CHATS.deny, tag: 'denied', runs: false, what: 'refuses the request of the script on A: the command does not run' },
  ])('$command typed to B $what', async ({ command, chat, tag, runs }) => {
    const marker = victim(tag);
    await askOnA(chat, tag);
    expect(await postUpdate(b(), textUpdate(chat, command))).toBe(200);
    await fx.api.waitFor(() => answer(chat) !== undefined, 'the script’s answer');
    // The script prints removed-<tag> only when its rm ran.
    expect(answer(chat)?.includes(`removed-${tag}`), answer(chat)).toBe(runs);
    expect(existsSync(marker)).toBe(!runs);
  }, 90_000);

  it('/stop typed to B kills the script on A that waits for approval (its process group dies) and the command never runs', async () => {
    const marker = victim('stopped');
    await askOnA(CHATS.stop, 'stopped');
    const pgid = await waitForPgid(fx.home, 'stopped');
    expect(groupAlive(pgid)).toBe(true);
    expect(await postUpdate(b(), textUpdate(CHATS.stop, '/stop'))).toBe(200);
    await fx.api.waitFor(() => texts(CHATS.stop).includes('Stopped.'), 'Stopped.');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
    expect(existsSync(marker)).toBe(true);
  }, 90_000);
});
