/**
 * The script tools a session's scripts get, as hermes-agent chooses them: the session's
 * enabled tools among `all`; when the session names none of them (no set, an empty set, or
 * one sharing no tool with the script tools) scripts get all of them rather than none.
 */
export function scriptToolSet(all: readonly string[], enabled?: Iterable<string>): string[] {
  if (!enabled) return [...all];
  const on = new Set(enabled);
  const chosen = all.filter((name) => on.has(name));
  return chosen.length > 0 ? chosen : [...all];
}

/**
 * Script tools that exist where the agent keeps memory (src/memory): offered beside the
 * others when the registry has them, `from hermes_tools import memory, session_search`.
 */
export const MEMORY_SCRIPT_TOOLS: readonly string[] = ['memory', 'session_search'];
