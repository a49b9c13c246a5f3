import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import type { Tool, ToolContext, ToolError, ToolOutcome } from '../tools/types.js';
import type { HermesConfig } from '../config/schema.js';
import { SCRIPT_TOOL_NAMES, SCRIPT_TOOL_SIGNATURES, checkScript } from '../tools/builtin/index.js';
import type { CodeExecutor, ExecuteCodeResult } from './types.js';
import { MEMORY_SCRIPT_TOOLS, scriptToolSet } from './script-tool-set.js';

/** The script tools offered: those among `enabled` (the session's tools), else all seven (scriptToolSet). */
function offered(enabled?: Iterable<string>): string[] {
  const on = enabled ? new Set(enabled) : undefined;
  return scriptToolSet([...SCRIPT_TOOL_NAMES, ...MEMORY_SCRIPT_TOOLS.filter((name) => on?.has(name))], enabled);
}

/** What the backend is, said plainly: only a sandbox or a container is called isolated. */
export function whereItRuns(backend: string): string {
  switch (backend.trim().toLowerCase()) {
    case 'local':
      return 'Backend: local - the script runs directly on the gateway\'s machine as the gateway\'s user, not isolated: it can read and change whatever that user can.';
    case 'sandbox':
      return 'Backend: sandbox - the script runs in a bubblewrap sandbox on the gateway\'s machine (the working folder writable, the rest of the host hidden or read-only).';
    case 'docker':
    case 'podman':
      return `Backend: ${backend.trim().toLowerCase()} - the script runs inside a container, isolated from the gateway's machine.`;
    case 'ssh':
      return 'Backend: ssh - the script runs on a remote host over SSH, as the configured user there, not isolated on that host.';
    default:
      return `Backend: ${backend.trim()} (a plugin backend) - it decides how isolated the script is.`;
  }
}

/**
 * The model-facing description: what to import, the limits, and how state works. With
 * `enabled` (the session's tool names) it lists only the script tools among them and points
 * to the terminal or read_file tool only when the session has it.
 */
export function executeCodeDescription(config: HermesConfig, enabled?: Iterable<string>): string {
  const settings = config.code_execution;
  const names = offered(enabled);
  const functions = names.map((name) => `  ${name}(${SCRIPT_TOOL_SIGNATURES[name].params}) - ${SCRIPT_TOOL_SIGNATURES[name].doc}`);
  const state = settings.session_kernels
    ? 'Calls in this session share one resident Python kernel: variables, imports and loaded data survive between calls. ' +
      'Pass reset: true to start from a fresh kernel. A timeout or an interrupt loses the kernel state.'
    : 'Each call runs as a fresh script; nothing survives between calls.';
  const intro =
    'Run a Python script that can call tools programmatically. Use it when a job needs several tool calls with logic ' +
    'between them, filtering or transforming large tool outputs, or looping over results; only what the script ' +
    'print()s comes back.' +
    (names.includes('terminal') ? ' For a quick shell command, a build or a test run, use the terminal tool instead.' : '');
  const imports =
    names.length > 0
      ? [
          `Import what you need: \`from hermes_tools import ${names.slice(0, 2).join(', ')}${names.length > 2 ? ', ...' : ''}\`. ` +
            'Available functions (each returns a dict; an error comes back as {"error": "..."}, not an exception):',
          ...functions,
        ]
      : ['No tools can be called from scripts in this session; `from hermes_tools import ...` offers only the helpers:'];
  const spill = names.includes('read_file') ? 'the full text is saved to a file you can read_file' : 'the middle is dropped';
  return [
    intro,
    '',
    ...imports,
    '  json_parse(text), shell_quote(s), retry(fn, max_attempts=3, delay=2) - helpers',
    '',
    `Limits: ${settings.timeout}s per run (then the process group is killed), stdout kept up to ${settings.max_stdout_bytes} bytes ` +
      `(head and tail; ${spill}), stderr up to ${settings.max_stderr_bytes} bytes, ` +
      `at most ${settings.max_tool_calls} tool calls per run. Mode: ${settings.mode} (${
        settings.mode === 'project' ? 'runs in the session working folder with the active virtualenv' : 'runs in a fresh temp folder'
      }). ${whereItRuns(config.terminal.backend)} API keys and tokens are not in the environment` +
      (settings.redact_secrets ? ', and credential-shaped strings in the output are masked.' : '.'),
    state,
  ].join('\n');
}

/** A clear error for arguments meant for another tool (`command` is the terminal tool's). */
function strayArguments(args: Record<string, unknown>, enabled?: readonly string[]): ToolError | undefined {
  if (args.code !== undefined || typeof args.command !== 'string') return undefined;
  const terminal = !enabled || enabled.includes('terminal');
  return {
    error: terminal
      ? 'execute_code takes Python source in "code", but was called with "command": did you mean terminal? ' +
        'Call the terminal tool with {"command": ...} for a shell command, or pass Python as {"code": ...}.'
      : 'execute_code takes Python source in "code", but was called with "command". Pass Python as {"code": ...}.',
  };
}

const args = z.object({
  code: z.string({ error: '"code" must be a string of Python source' }).describe('Python source to run. Print what you want to see.'),
  // Lenient as before: anything but true keeps the kernel.
  reset: z.boolean().optional().catch(undefined).describe('Discard the session kernel (its variables) before running.'),
});

/** execute_code's arguments, as in-process callers give them. */
export type ExecuteCodeArgs = z.input<typeof args>;

/**
 * Runs `code` in the caller's session through `executor`, after the approvals policy for
 * scripts (approvals.execute_code: ask makes the whole script wait for the user before it
 * starts; with nobody to ask it is refused). The tool and in-process callers (a scheduled
 * job) both come here.
 */
export async function runExecuteCode(executor: CodeExecutor, request: ExecuteCodeArgs, ctx: ToolContext): Promise<ToolOutcome<ExecuteCodeResult>> {
  const verdict = await checkScript(request.code, ctx);
  if (!verdict.allowed) return { error: verdict.error };
  return executor.execute({ code: request.code, reset: request.reset === true, sessionId: ctx.sessionId, signal: ctx.signal, context: ctx });
}

/** The execute_code tool given to the model, backed by `executor`. */
export function executeCodeTool(executor: CodeExecutor, config: HermesConfig): Tool<ExecuteCodeArgs, ExecuteCodeResult> {
  return defineTool({
    name: 'execute_code',
    description: executeCodeDescription(config),
    describe: (enabled) => executeCodeDescription(config, enabled),
    args,
    prepare: (raw, ctx) => strayArguments(raw, ctx.enabledTools) ?? raw,
    run: (request, ctx) => runExecuteCode(executor, request, ctx),
  });
}
