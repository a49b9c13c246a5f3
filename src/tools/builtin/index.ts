import type { Tool } from '../types.js';
import { patchTool } from './patch.js';
import { readFileTool } from './read-file.js';
import { searchFilesTool } from './search-files.js';
import { sendFileTool } from './send-file.js';
import { terminalTool } from './terminal.js';
import { webExtractTool } from './web-extract.js';
import { webSearchTool } from './web-search.js';
import { writeFileTool } from './write-file.js';

export { SCRIPT_TOOL_NAMES, SCRIPT_TOOL_SIGNATURES, type ScriptToolName, type ScriptToolSignature } from './signatures.js';
export { checkCommand, checkFileWrite, checkScript, type CommandVerdict } from './command-guard.js';
export { readFileTool, writeFileTool, searchFilesTool, patchTool, terminalTool, webSearchTool, webExtractTool, sendFileTool };
export type { SearchBackend } from './search-files.js';
export { unifiedDiff } from './unified-diff.js';
export { readEnvFile, writeEnvFile, resolveEnvPath, type ReadOutcome } from './env-files.js';

/** The tools scripts may call through `hermes_tools`, in the order of SCRIPT_TOOL_NAMES. */
export function scriptTools(): Tool[] {
  return [readFileTool(), writeFileTool(), searchFilesTool(), patchTool(), terminalTool(), webSearchTool(), webExtractTool(), sendFileTool()];
}

export { memoryTool } from './memory.js';
export { sessionSearchTool } from './session-search.js';
export { skillManageTool } from './skill-manage.js';
