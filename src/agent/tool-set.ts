import type { HermesConfig } from '../config/schema.js';
import type { Logger } from '../shared/logger.js';
import { ToolRegistry, type ToolSource } from '../tools/registry.js';
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
  'skill_manage',
  'memory',
  'session_search',
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

export interface ToolSetOptions {
  config: HermesConfig;
  logger: Logger;
  /** The gateway's tools (terminal, file and web tools, plugins). */
  given: readonly Tool[];
  /** execute_code, when the gateway has no tool of that name already. */
  executeCode?: Tool;
  /** The agent's own tools (delegate_task, skills). */
  own: readonly Tool[];
  /** Tools that come and go (MCP servers): looked up live, after the registered ones. */
  sources?: readonly ToolSource[];
}

/**
 * The tools of every turn: one registry in {@link TOOL_ORDER} (the model and scripts call the
 * same tools), and the names `agent.tools` enables. Names it does not know are logged once.
 */
export class ToolSet {
  readonly registry: ToolRegistry;
  private readonly settings: HermesConfig['agent']['tools'];

  constructor(options: ToolSetOptions) {
    const code = options.executeCode && !options.given.some((tool) => tool.name === 'execute_code') ? [options.executeCode] : [];
    this.registry = new ToolRegistry(orderTools([...code, ...options.given, ...options.own]), options.sources);
    this.settings = options.config.agent.tools;
    const { enabled, disabled } = options.config.agent.tools;
    const unknown = [...enabled, ...disabled].filter((name) => !this.registry.has(name));
    if (unknown.length > 0) {
      options.logger.warn(
        { unknown, known: this.registry.names() },
        `agent.tools names unknown tool(s): ${unknown.join(', ')}; known: ${this.registry.names().join(', ')}`,
      );
    }
  }

  /** The names `agent.tools` enables, read at every turn: a source's tools (MCP servers) change while the gateway runs. */
  get enabled(): readonly string[] {
    return enabledToolNames(this.registry.names(), this.settings);
  }

  /** The enabled names among `names` (a subagent's request), in order. */
  within(names: readonly string[] | undefined, parent: readonly string[]): string[] {
    return names ? parent.filter((name) => names.includes(name)) : [...parent];
  }
}
