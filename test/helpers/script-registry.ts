import { z } from 'zod';
import { ToolRegistry, defineTool } from '../../src/tools/index.js';
import { scriptTools } from '../../src/tools/builtin/index.js';

/**
 * The seven script tools, but web_search answers `{ echoed: query }` with no network (and
 * hands its arguments to `seen` first): a script's tool call is visible in what it prints.
 */
export function scriptToolsWithEchoSearch(seen?: (args: Record<string, unknown>) => void): ToolRegistry {
  const echo = defineTool({
    name: 'web_search',
    description: 'echoes its query',
    args: z.object({ query: z.string() }).passthrough(),
    run: async (args) => {
      seen?.(args);
      return { echoed: args.query };
    },
  });
  return new ToolRegistry([echo, ...scriptTools().filter((tool) => tool.name !== 'web_search')]);
}
