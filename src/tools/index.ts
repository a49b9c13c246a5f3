export type { Tool, ToolContext, ToolError, JsonSchema } from './types.js';
export { isToolError } from './types.js';
export { defineTool } from './define-tool.js';
export { ToolRegistry } from './registry.js';
