import type { Tool } from '../tools/types.js';
import type { HermesConfig } from '../config/schema.js';
import { SCRIPT_TOOL_NAMES, SCRIPT_TOOL_SIGNATURES, checkScript } from '../tools/builtin/index.js';
import type { CodeExecutor } from './types.js';

/** The model-facing description: what to import, the limits, and how state works. */
export function executeCodeDescription(config: HermesConfig): string {
  const settings = config.code_execution;
  const functions = SCRIPT_TOOL_NAMES.map((name) => `  ${name}(${SCRIPT_TOOL_SIGNATURES[name].params}) - ${SCRIPT_TOOL_SIGNATURES[name].doc}`);
  const state = settings.session_kernels
    ? 'Calls in this session share one resident Python kernel: variables, imports and loaded data survive between calls. ' +
      'Pass reset: true to start from a fresh kernel. A timeout or an interrupt loses the kernel state.'
    : 'Each call runs as a fresh script; nothing survives between calls.'
  return [
    'Run a Python script that can call tools programmatically. Use it when a job needs several tool calls with logic ' +
      'between them, filtering or transforming large tool outputs, or looping over results; only what the script ' +
      'print()s comes back. For a quick shell command, a build or a test run, use the terminal tool instead.',
    '',
    'Import what you need: `from hermes_tools import read_file, search_files, ...`. Available functions ' +
      '(each returns a dict; an error comes back as {"error": "..."}, not an exception):',
    ...functions,
    '  json_parse(text), shell_quote(s), retry(fn, max_attempts=3, delay=2) - helpers',
    '',
    `Limits: ${settings.timeout}s per run (then the process group is killed), stdout kept up to ${settings.max_stdout_bytes} bytes ` +
      `(head and tail; the full text is saved to a file you can read_file), stderr up to ${settings.max_stderr_bytes} bytes, ` +
      `at most ${settings.max_tool_calls} tool calls per run. Mode: ${settings.mode} (${
        settings.mode === 'project' ? 'runs in the session working folder with the active virtualenv' : 'runs in an isolated temp folder'
      }). API keys and tokens are not in the environment.`,
    state,
  ].join('\n');
}

/** The execute_code tool given to the model, backed by `executor`. */
export function executeCodeTool(executor: CodeExecutor, config: HermesConfig): Tool {
  return {
    name: 'execute_code',
    description: executeCodeDescription(config),
    parameters: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'Python source to run. Print what you want to see.' },
        reset: { type: 'boolean', description: 'Discard the session kernel (its variables) before running.' },
      },
      required: ['code'],
    },
    async handler(args, ctx) {
      // approvals.execute_code: ask — the whole script waits for the user before it starts.
      if (typeof args.code === 'string') {
        const verdict = await checkScript(args.code, ctx);
        if (!verdict.allowed) return { error: verdict.error };
      }
      return executor.execute({
        code: args.code,
        reset: args.reset === true,
        sessionId: ctx.sessionId,
        signal: ctx.signal,
        context: ctx,
      });
    },
  };
}
