import type { HermesConfig } from '../config/index.js';
import { HermesError, errorMessage } from '../shared/errors.js';

/** What one real call to the model said: whether it answered, and whether it called the tool. */
export interface ModelCheckResult {
  ok: boolean;
  /** The model answered with a call of the test tool (execute_code needs tool calling). */
  toolCalled: boolean;
  detail: string;
  fix?: string;
}

/** The tool the check offers; a model that can call tools calls it. */
const CHECK_TOOL = {
  type: 'function' as const,
  function: {
    name: 'hermes_check',
    description: 'Confirms that tool calling works. Call it with the word you were given.',
    parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  },
};

/** How long the check waits for an answer at most (a slow local model gets model.timeout when that is shorter). */
const CHECK_TIMEOUT_SECONDS = 60;

/**
 * Sends one chat completion with one tool to the configured model, through the agent's own
 * model client (same URL, key variable and request shape), with no retries.
 */
export async function checkModel(model: HermesConfig['model'], env: NodeJS.ProcessEnv): Promise<ModelCheckResult> {
  if (!model.name.trim()) {
    return { ok: false, toolCalled: false, detail: 'model.name is empty: the gateway has no model to ask', fix: 'hermes setup (or hermes config set model.name <model id>)' };
  }
  const [{ createModelClient }, { silentLogger }] = await Promise.all([import('../agent/index.js'), import('../shared/logger.js')]);
  const client = createModelClient({
    model: { ...model, max_retries: 0, stream: false, timeout: Math.min(model.timeout, CHECK_TIMEOUT_SECONDS), max_tokens: null },
    logger: silentLogger(),
    env,
  });
  try {
    const reply = await client.complete({
      messages: [
        { role: 'system', content: 'You are being tested by `hermes doctor`. Answer by calling the tool you are given.' },
        { role: 'user', content: 'Call hermes_check with {"word": "ready"}.' },
      ],
      tools: [CHECK_TOOL],
    });
    const called = reply.toolCalls.some((call) => call.name === CHECK_TOOL.function.name);
    return called
      ? { ok: true, toolCalled: true, detail: `${model.name} at ${model.base_url} answered and called a tool` }
      : {
          ok: true, toolCalled: false,
          detail: `${model.name} at ${model.base_url} answered, but with text instead of calling the offered tool`,
          fix: 'execute_code and every other tool need a model that calls tools; pick one with tool support (see "The model" in the README)',
        };
  } catch (error) {
    return { ok: false, toolCalled: false, detail: errorMessage(error), fix: modelFix(error) };
  }
}

/** What to change, by the kind of failure the model client reported. */
function modelFix(error: unknown): string {
  switch (error instanceof HermesError ? error.code : undefined) {
    case 'MODEL_UNREACHABLE':
    case 'MODEL_TIMEOUT':
      return 'start the model server, or point model.base_url at one that runs (hermes setup)';
    case 'MODEL_AUTH':
      return 'put the right key in HERMES_HOME/.env under the name model.api_key_env gives (hermes setup)';
    case 'MODEL_NOT_FOUND':
      return 'set model.name to a model the server lists (hermes setup shows them)';
    default:
      return 'see the message above; hermes setup walks through the model settings';
  }
}
