import { posix } from 'node:path';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../types.js';
import { errorMessage } from '../../shared/errors.js';
import { checkFileWrite } from './command-guard.js';
import { describeReadProblem, readEnvFile, writeEnvFile } from './env-files.js';
import { looksBinary } from './text.js';
import { unifiedDiff } from './unified-diff.js';

/** Diffs longer than this are cut: the model needs the gist, not the whole file. */
const MAX_DIFF_CHARS = 8000;

const args = z.strictObject({
  path: z.string().min(1).describe('File to edit: absolute, or relative to the working folder'),
  old_string: z.string().describe('Exact text to find; must occur once unless replace_all'),
  new_string: z.string().describe('Replacement text (may be empty to delete)'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence instead of exactly one'),
});

function count(haystack: string, needle: string): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** `patch(path, old_string, new_string, replace_all=False)`: exact find-and-replace with a diff. */
export function patchTool(): Tool {
  return defineTool({
    name: 'patch',
    description:
      'Replace old_string with new_string in a file. old_string must occur exactly once unless replace_all is true. ' +
      'Returns success, replacements and a short unified diff.',
    args,
    async run({ path, old_string: oldRaw, new_string: newRaw, replace_all: replaceAll }, ctx) {
      if (oldRaw === '') return { error: 'patch: old_string is empty; give the exact text to replace (use write_file to create a file)' };
      if (oldRaw === newRaw) return { error: 'patch: old_string and new_string are the same; nothing to change' };
      const verdict = await checkFileWrite('patch', path, ctx);
      if (!verdict.allowed) return { error: verdict.error };
      const read = await readEnvFile(ctx.environment, path, ctx.signal);
      if (read.kind !== 'file') return { error: describeReadProblem('patch', read, ctx.environment.cwd) };
      if (looksBinary(read.data)) return { error: `patch: ${read.path} is a binary file; patch edits text files only` };
      const before = read.data.toString('utf8');
      let oldString = oldRaw;
      let newString = newRaw;
      let found = count(before, oldString);
      // Models write \n; a CRLF file then only matches with its own line endings.
      if (found === 0 && before.includes('\r\n') && oldRaw.includes('\n') && !oldRaw.includes('\r\n')) {
        oldString = oldRaw.replace(/\n/g, '\r\n');
        newString = newRaw.replace(/\n/g, '\r\n');
        found = count(before, oldString);
      }
      if (found === 0) return { error: `patch: old_string not found in ${read.path}; read the file and copy the exact text, whitespace included` };
      if (found > 1 && !replaceAll) {
        return {
          error: `patch: old_string occurs ${found} times in ${read.path}; add surrounding lines to make it unique, or pass replace_all=True`,
        };
      }
      const after = replaceAll ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
      try {
        await writeEnvFile(ctx.environment, read.path, after, ctx.signal);
      } catch (error) {
        return { error: `patch: cannot write ${read.path}: ${errorMessage(error)}` };
      }
      const relative = posix.relative(ctx.environment.cwd, read.path);
      let diff = unifiedDiff(before, after, relative && !relative.startsWith('..') ? relative : read.path.replace(/^\//, ''));
      if (diff.length > MAX_DIFF_CHARS) diff = `${diff.slice(0, MAX_DIFF_CHARS)}\n... [diff truncated, ${diff.length} chars]\n`;
      return { success: true, replacements: replaceAll ? found : 1, diff };
    },
  });
}
