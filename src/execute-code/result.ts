import type { ExecuteCodeResult } from './types.js';

/** Seconds with two decimals, as the result reports them. */
export const secondsSince = (startedMs: number): number => Math.round((performance.now() - startedMs) / 10) / 100;

/** A result for a call that never ran (bad arguments, nothing to run). */
export function refusedResult(error: string, startedMs: number): ExecuteCodeResult {
  return { status: 'error', output: '', tool_calls_made: 0, duration_seconds: secondsSince(startedMs), error };
}

/**
 * Checks the `code` argument: a non-empty string. Returns the error text, or undefined.
 * `allowed` (the script tools the session has) decides whether the terminal tool is pointed to.
 */
export function validateCode(code: unknown, allowed?: ReadonlySet<string>): string | undefined {
  if (typeof code !== 'string') {
    const type = code === null || code === undefined ? String(code) : Array.isArray(code) ? 'array' : typeof code;
    return `execute_code: "code" must be a string of Python source, got ${type}.`;
  }
  if (code.trim() === '') {
    const hint = !allowed || allowed.has('terminal') ? ' For a shell command, use the terminal tool instead.' : '';
    return `execute_code: "code" is required and must not be empty.${hint}`;
  }
  return undefined;
}

/** The last meaningful line of a traceback (`NameError: name 'x' is not defined`). */
export function lastErrorLine(stderr: string): string | undefined {
  const lines = stderr.split('\n').map((line) => line.trim()).filter(Boolean);
  return lines.at(-1);
}

export function joinOutput(...parts: string[]): string {
  let out = '';
  for (const part of parts) {
    if (!part) continue;
    if (out && !out.endsWith('\n')) out += '\n';
    out += part;
  }
  return out;
}

export interface StdoutFacts {
  text: string;
  truncated: boolean;
  totalBytes: number;
  /** Bytes dropped between the kept head and tail (0 when nothing was cut). */
  omittedBytes?: number;
  spillPath?: string;
}

/** Adds the stdout size facts (and the spill path with a warning when it was cut). */
export function stdoutFields(stdout: StdoutFacts): Partial<ExecuteCodeResult> {
  const fields: Partial<ExecuteCodeResult> = { stdout_truncated: stdout.truncated, stdout_bytes_total: stdout.totalBytes };
  if (stdout.truncated) {
    // As hermes-agent reports a cut: how much of stdout the result holds and how much it left out.
    const omitted = Math.min(stdout.totalBytes, Math.max(0, stdout.omittedBytes ?? 0));
    fields.stdout_bytes_captured = stdout.totalBytes - omitted;
    fields.stdout_bytes_omitted = omitted;
  }
  if (stdout.truncated && stdout.spillPath) {
    fields.stdout_spill_path = stdout.spillPath;
    fields.warning =
      `stdout was ${stdout.totalBytes} bytes and was truncated. The full output is saved at ${stdout.spillPath}; ` +
      `page it with read_file(path, offset, limit) instead of running the script again.`;
  } else if (stdout.truncated) {
    fields.warning = `stdout was ${stdout.totalBytes} bytes and was truncated; print less, or write results to a file.`;
  }
  return fields;
}
