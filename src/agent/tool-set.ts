import type { HermesConfig } from '../config/schema.js';
import type { Tool } from '../tools/types.js';

/** The order tools are offered to the model in; others follow by name. */
export const TOOL_ORDER = [
  'execute_code',
  'terminal',
  'read_file',
  'write_file',
  'search_files',
  'patch',
  'web_search',
  'web_extract',
  'delegate_task',
  'skills_list',
  'skill_view',
] as const;

/** Tools sorted into {@link TOOL_ORDER}, the first of each name kept. */
export function orderTools(tools: Iterable<Tool>): Tool[] {
  const byName = new Map<string, Tool>();
  for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  const rank = (name: string) => {
    const index = (TOOL_ORDER as readonly string[]).indexOf(name);
    return index < 0 ? TOOL_ORDER.length : index;
  };
  return [...byName.values()].sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}

/** `agent.tools`: when `enabled` is not empty only those; `disabled` always wins. */
export function enabledToolNames(available: readonly string[], settings: HermesConfig['agent']['tools']): string[] {
  const only = settings.enabled.length > 0 ? new Set(settings.enabled) : undefined;
  const off = new Set(settings.disabled);
  return available.filter((name) => (!only || only.has(name)) && !off.has(name));
}
