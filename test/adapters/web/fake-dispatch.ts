import type { InboundMessage, MessageHandler, PlatformAdapter } from '../../../src/gateway/types.js';

/**
 * A stand-in for Gateway.dispatch in the adapter's own tests: one lane per thread key, a new
 * message interrupts the running turn (abort, wait, then run), and each turn emits the events
 * the agent emits for a model that calls execute_code. Messages containing "sleep" run a
 * script that waits until interrupted. The full-stack test uses the real gateway instead.
 */
export function fakeDispatch(adapter: PlatformAdapter): { handler: MessageHandler; seen: InboundMessage[] } {
  const lanes = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const seen: InboundMessage[] = [];
  const emit: NonNullable<PlatformAdapter['onAgentEvent']> = (replyTo, event) => adapter.onAgentEvent?.(replyTo, event);

  async function turn(message: InboundMessage, signal: AbortSignal): Promise<void> {
    const { replyTo } = message;
    emit(replyTo, { type: 'turn_started' });
    const sleeps = message.text.includes('sleep');
    const code = sleeps ? 'import time\nprint("napping", flush=True)\ntime.sleep(30)' : 'print("hello from python")\nprint(6 * 7)';
    emit(replyTo, { type: 'tool_started', callId: 'call_1', name: 'execute_code', args: { code } });
    if (sleeps) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
    if (signal.aborted) {
      const result = {
        status: 'interrupted',
        output: 'napping\n',
        tool_calls_made: 0,
        duration_seconds: 1.5,
        error: `[execution interrupted — ${String(signal.reason)}]`,
      };
      emit(replyTo, { type: 'tool_finished', callId: 'call_1', name: 'execute_code', result, durationMs: 1500 });
      emit(replyTo, { type: 'turn_finished', status: 'interrupted' });
      return;
    }
    const result = { status: 'success', output: 'hello from python\n42\n', tool_calls_made: 0, duration_seconds: 0.05 };
    emit(replyTo, { type: 'tool_finished', callId: 'call_1', name: 'execute_code', result, durationMs: 50 });
    const answer = `You said: \`${message.text}\`\n\nThe script printed **42**.\n\n\`\`\`python\nprint(6 * 7)\n\`\`\``;
    emit(replyTo, { type: 'text', text: answer, final: true });
    // Like the gateway: the final answer also goes through send(); the page must not show it twice.
    await adapter.send(replyTo, answer);
    emit(replyTo, { type: 'turn_finished', status: 'completed' });
  }

  const handler: MessageHandler = async (message) => {
    seen.push(message);
    const running = lanes.get(message.threadKey);
    if (running) {
      running.controller.abort('user sent a new message');
      await running.done;
    }
    const controller = new AbortController();
    const done = turn(message, controller.signal).finally(() => {
      if (lanes.get(message.threadKey)?.controller === controller) lanes.delete(message.threadKey);
    });
    lanes.set(message.threadKey, { controller, done });
  };
  return { handler, seen };
}
