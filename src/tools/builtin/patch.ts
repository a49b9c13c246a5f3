import { posix } from 'node:path';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool, ToolContext } from '../types.js';
import { errorMessage } from '../../shared/errors.js';
import { checkFileWrite } from './command-guard.js';
import { describeReadProblem, readEnvFile, resolveEnvPath, writeEnvFile } from './env-files.js';
import { shellQuote } from '../../shared/shell-quote.js';
import { V4aError, applyHunks, parseV4a, type V4aOperation } from './v4a-patch.js';
import { looksBinary } from './text.js';
import { unifiedDiff } from './unified-diff.js';

/** Diffs longer than this are cut: the model needs the gist, not the whole file. */
const MAX_DIFF_CHARS = 8000;

const args = z.strictObject({
  path: z.string().min(1).nullable().default(null).describe('File to edit (mode "replace"): absolute, or relative to the working folder'),
  old_string: z.string().nullable().default(null).describe('Exact text to find (mode "replace"); must occur once unless replace_all'),
  new_string: z.string().nullable().default(null).describe('Replacement text (mode "replace"; may be empty to delete)'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence instead of exactly one'),
  // As hermes-agent: "replace" (find and replace in one file) or "patch" (a V4A patch over several files).
  mode: z.preprocess((value) => (typeof value === 'string' ? value.trim().toLowerCase() : value ?? undefined), z.enum(['replace', 'patch']).default('replace'))
    .describe('"replace": old_string -> new_string in path; "patch": apply the V4A patch in `patch`'),
  patch: z.string().nullable().default(null).describe('mode "patch": a V4A patch (*** Begin Patch, *** Update/Add/Delete File: path, @@ hunks, *** End Patch)'),
});

function count(haystack: string, needle: string): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** The diff shown for one file, cut when long. */
function shortDiff(before: string, after: string, path: string, cwd: string): string {
  const relative = posix.relative(cwd, path);
  const diff = unifiedDiff(before, after, relative && !relative.startsWith('..') ? relative : path.replace(/^\//, ''));
  return diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n... [diff truncated, ${diff.length} chars]\n` : diff;
}

interface PlannedFile {
  path: string;
  action: 'add' | 'update' | 'delete' | 'move';
  before: string;
  after?: string;
  /** For a move: the path written; `path` is removed. */
  writeTo?: string;
}

/** mode "patch": checks every file, computes every change, and only then writes, so a bad hunk changes nothing. */
async function applyV4a(text: string, ctx: ToolContext): Promise<Record<string, unknown>> {
  let operations: V4aOperation[];
  try {
    operations = parseV4a(text);
  } catch (error) {
    return { error: errorMessage(error) };
  }
  const planned: PlannedFile[] = [];
  try {
    for (const operation of operations) {
      for (const target of operation.kind === 'update' && operation.moveTo ? [operation.path, operation.moveTo] : [operation.path]) {
        const verdict = await checkFileWrite('patch', target, ctx);
        if (!verdict.allowed) return { error: verdict.error };
      }
      const read = await readEnvFile(ctx.environment, operation.path, ctx.signal);
      if (operation.kind === 'add') {
        if (read.kind !== 'missing') return { error: `patch: *** Add File: ${read.path} already exists; use *** Update File to change it` };
        planned.push({ path: read.path, action: 'add', before: '', after: operation.content });
        continue;
      }
      if (read.kind !== 'file') return { error: describeReadProblem('patch', read, ctx.environment.cwd) };
      if (looksBinary(read.data)) return { error: `patch: ${read.path} is a binary file; patch edits text files only` };
      const before = read.data.toString('utf8');
      if (operation.kind === 'delete') {
        planned.push({ path: read.path, action: 'delete', before });
        continue;
      }
      const after = applyHunks(read.path, before, operation.hunks);
      const writeTo = operation.moveTo ? resolveEnvPath(ctx.environment, operation.moveTo) : undefined;
      planned.push({ path: read.path, action: writeTo && writeTo !== read.path ? 'move' : 'update', before, after, ...(writeTo && writeTo !== read.path ? { writeTo } : {}) });
    }
  } catch (error) {
    if (error instanceof V4aError) return { error: error.message };
    throw error;
  }
  const diffs: string[] = [];
  for (const file of planned) {
    try {
      if (file.after !== undefined) await writeEnvFile(ctx.environment, file.writeTo ?? file.path, file.after, ctx.signal);
      if (file.action === 'delete' || file.action === 'move') {
        const removed = await ctx.environment.execute(`rm -f -- ${shellQuote(file.path)}`, { timeout: 30, signal: ctx.signal });
        if (removed.exit_code !== 0) throw new Error(removed.output.trim() || `rm exited with ${removed.exit_code}`);
      }
    } catch (error) {
      return { error: `patch: cannot change ${file.path}: ${errorMessage(error)} (files before it in the patch were changed)` };
    }
    diffs.push(shortDiff(file.before, file.after ?? '', file.writeTo ?? file.path, ctx.environment.cwd));
  }
  return { success: true, files: planned.map((file) => ({ path: file.writeTo ?? file.path, action: file.action })), diff: diffs.join('') };
}

/** `patch(path, old_string, new_string, replace_all=False, mode="replace", patch=None)`: find-and-replace, or a V4A patch. */
export function patchTool(): Tool {
  return defineTool({
    name: 'patch',
    description:
      'Replace old_string with new_string in a file. old_string must occur exactly once unless replace_all is true. ' +
      'Returns success, replacements and a short unified diff. With mode="patch", apply a V4A patch (`patch`: ' +
      '*** Begin Patch, *** Update File: / *** Add File: / *** Delete File: path, @@ hunks of " ", "-", "+" lines, *** End Patch) ' +
      'to several files at once: every hunk is checked before any file is written.',
    args,
    async run({ path, old_string: oldGiven, new_string: newGiven, replace_all: replaceAll, mode, patch }, ctx) {
      if (mode === 'patch') {
        if (!patch) return { error: 'patch: mode "patch" needs the V4A patch text in `patch`' };
        return applyV4a(patch, ctx);
      }
      if (!path || oldGiven === null || newGiven === null) {
        return { error: 'patch: mode "replace" needs path, old_string and new_string (or pass mode="patch" with a V4A patch)' };
      }
      const oldRaw = oldGiven;
      const newRaw = newGiven;
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
      return { success: true, replacements: replaceAll ? found : 1, diff: shortDiff(before, after, read.path, ctx.environment.cwd) };
    },
  });
}
