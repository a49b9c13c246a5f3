import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../types.js';
import { describeReadProblem, isHostLocal, readEnvFile } from './env-files.js';
import { similarFiles } from './similar-files.js';
import { capLine, looksBinary, splitLines } from './text.js';

/** Longest line returned whole; longer ones (minified files) are cut with a note. */
export const MAX_LINE_CHARS = 50_000;
/** Characters one call returns at most, whatever `limit` says: results must fit an RPC frame. */
export const MAX_CONTENT_CHARS = 4_000_000;

const args = z.strictObject({
  path: z.string().min(1).describe('File to read: absolute, or relative to the working folder'),
  offset: z.number().int().min(1).default(1).describe('First line to return, 1-based'),
  limit: z.number().int().min(1).default(2000).describe('How many lines to return'),
});

/** `read_file(path, offset=1, limit=2000)`: plain text lines of a file, paged by line. */
export function readFileTool(): Tool {
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file, paged by lines. Returns content (the selected lines as plain text, no line numbers), ' +
      'total_lines and truncated (true when more lines follow; continue with offset). Binary files are refused.',
    args,
    async run({ path, offset, limit }, ctx) {
      const read = await readEnvFile(ctx.environment, path, ctx.signal);
      if (read.kind !== 'file') {
        const error = describeReadProblem('read_file', read, ctx.environment.cwd);
        const similar = read.kind === 'missing' && isHostLocal(ctx.environment) ? await similarFiles(read.path, path) : [];
        return similar.length > 0 ? { error: `${error}. Similar: ${similar.join(', ')}`, similar_files: similar } : { error };
      }
      if (looksBinary(read.data)) {
        return { error: `read_file: ${read.path} is a binary file (${read.data.length} bytes); it cannot be shown as text` };
      }
      const lines = splitLines(read.data.toString('utf8'));
      const start = offset - 1;
      const selected: string[] = [];
      let size = 0;
      for (const line of lines.slice(start, start + limit)) {
        const shown = capLine(line, MAX_LINE_CHARS);
        if (selected.length > 0 && size + shown.length + 1 > MAX_CONTENT_CHARS) break;
        selected.push(shown);
        size += shown.length + 1;
      }
      const truncated = start + selected.length < lines.length;
      return {
        content: selected.join('\n'),
        total_lines: lines.length,
        truncated,
        ...(truncated
          ? { hint: `Showing lines ${offset}-${start + selected.length} of ${lines.length}; use offset=${start + selected.length + 1} to continue` }
          : {}),
      };
    },
  });
}
