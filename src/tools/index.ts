export type { Tool, ToolContext, ToolError, JsonSchema, FileSender, SentFile } from './types.js';
export { isToolError } from './types.js';
export { defineTool } from './define-tool.js';
export { ToolRegistry } from './registry.js';
export {
  scriptTools,
  SCRIPT_TOOL_NAMES,
  SCRIPT_TOOL_SIGNATURES,
  checkCommand,
  readFileTool,
  writeFileTool,
  searchFilesTool,
  patchTool,
  terminalTool,
  webSearchTool,
  webExtractTool,
  type SearchBackend,
  type ScriptToolName,
  type ScriptToolSignature,
  type CommandVerdict,
} from './builtin/index.js';
