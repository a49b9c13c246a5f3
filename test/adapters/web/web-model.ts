import type { FakeReply, RecordedRequest } from '../../fakes/openai-server.js';

/**
 * The model's side of the web chat's full-stack test, played by the fake OpenAI server.
 * The user's text decides:
 * - `[RUN]` → execute_code with a script that prints two lines;
 * - `[SLOW]` → a script that prints, then sleeps two minutes (until interrupted);
 * - `[TIMEOUT]` → a script that sleeps past code_execution.timeout;
 * - anything else → an echo of the text in markdown.
 * After a tool result the model answers with the script's output in bold and a code block.
 */
export function webModel(): FakeReply {
  return { respond: answer };
}

const SCRIPTS: Array<[tag: string, code: string]> = [
  ['[RUN]', 'print("hello from python")\nprint(6 * 7)\n'],
  ['[SLOW]', 'import time\nprint("napping", flush=True)\ntime.sleep(120)\n'],
  ['[TIMEOUT]', 'import time\nprint("about to oversleep", flush=True)\ntime.sleep(120)\n'],
];

function answer(request: RecordedRequest): FakeReply {
  const messages = request.body.messages;
  const last = messages[messages.length - 1];
  if (last.role === 'tool') {
    const result = String(last.content);
    return { text: `The script said:\n\n\`\`\`\n${result.slice(0, 300)}\n\`\`\`\n\n**finished**` };
  }
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
  for (const [tag, code] of SCRIPTS) {
    if (text.includes(tag)) return { toolCalls: [{ name: 'execute_code', arguments: { code } }] };
  }
  return { text: `echo: ${text}` };
}
