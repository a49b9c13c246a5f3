import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../types.js';
import { errorMessage } from '../../shared/errors.js';
import { isHostLocal, resolveEnvPath } from './env-files.js';
import { ResultCollector } from './search/collector.js';
import { compileNamePattern, compilePattern } from './search/pattern.js';
import { ripgrepAvailable, searchRipgrep } from './search/ripgrep.js';
import type { SearchRequest } from './search/types.js';
import { searchBuiltin } from './search/walk.js';

/** The reference's older spellings, still accepted. */
const TARGET_ALIASES: Record<string, string> = { grep: 'content', find: 'files' };
const MODE_ALIASES: Record<string, string> = { files_only: 'files_with_matches' };

/** Maps the old spellings before validation, so the schema the model sees lists only the current ones. */
function withAliases(raw: Record<string, unknown>): Record<string, unknown> {
  const out = { ...raw };
  if (typeof out.target === 'string' && Object.hasOwn(TARGET_ALIASES, out.target)) out.target = TARGET_ALIASES[out.target];
  if (typeof out.output_mode === 'string' && Object.hasOwn(MODE_ALIASES, out.output_mode)) out.output_mode = MODE_ALIASES[out.output_mode];
  return out;
}

const args = z.strictObject({
  pattern: z.string().min(1).describe('Regular expression to find in file contents; with target="files", a glob or regex for file names'),
  target: z.enum(['content', 'files']).default('content')
    .describe('"content" searches inside files, "files" lists files whose name matches'),
  path: z.string().min(1).default('.').describe('Folder (or file) to search; result paths start with it'),
  file_glob: z.string().min(1).nullable().default(null).describe('Only files matching this glob, e.g. "*.py" (a leading ! excludes)'),
  limit: z.number().int().min(1).default(50).describe('Results per page'),
  offset: z.number().int().min(0).default(0).describe('Results to skip, for paging'),
  output_mode: z.enum(['content', 'files_with_matches', 'count']).default('content')
    .describe('content: matching lines; files_with_matches: paths only; count: matching lines per file'),
  context: z.number().int().min(0).default(0).describe('Lines of context before and after each match'),
});

/** Which search runs: ripgrep when the environment has it, else the built-in one (host environments only). */
export type SearchBackend = 'auto' | 'ripgrep' | 'builtin';

/**
 * `search_files(pattern, target="content", path=".", file_glob=None, limit=50, offset=0,
 * output_mode="content", context=0)`. Results are in path order (names sorted bytewise
 * folder by folder, as `rg --sort path`), then line order; `total_count` counts the whole
 * result and `truncated` says a further page exists.
 */
export function searchFilesTool(options: { backend?: SearchBackend } = {}): Tool {
  const backend = options.backend ?? 'auto';
  const tool = defineTool({
    prepare: withAliases,
    name: 'search_files',
    description:
      'Search file contents with a regular expression (ripgrep when installed), or find files by name with target="files". ' +
      'Skips .git, node_modules and binary files. Returns matches [{path, line, content}] (files for files_with_matches ' +
      'and target="files", counts [{path, count}] for count), total_count and truncated; page with limit and offset. ' +
      'Paths start with the given path, so read_file(match["path"]) works.',
    args,
    async run(input, ctx) {
      const request: SearchRequest = {
        pattern: input.pattern,
        target: input.target,
        root: input.path,
        fileGlob: input.file_glob,
        limit: input.limit,
        offset: input.offset,
        outputMode: input.output_mode,
        context: input.target === 'files' ? 0 : input.context,
      };
      const env = ctx.environment;
      const rootFull = resolveEnvPath(env, request.root);
      // ripgrep gets no shell to expand `~`: search the expanded path, and show results under it.
      if (request.root === '~' || request.root.startsWith('~/')) request.root = rootFull;
      const useRg =
        backend === 'ripgrep' || (backend === 'auto' && (await ripgrepAvailable(env, ctx.signal)));
      const collector = new ResultCollector(request);
      ctx.logger.debug({ tool: 'search_files', backend: useRg ? 'ripgrep' : 'builtin', root: rootFull }, 'search_files backend');
      const missing = { error: `search_files: path not found: ${rootFull} (relative paths start at ${env.cwd})` };
      if (isHostLocal(env)) {
        try {
          await stat(rootFull);
        } catch {
          return missing;
        }
      }

      if (!useRg) {
        if (!isHostLocal(env)) {
          return { error: 'search_files: ripgrep (rg) is not installed in this environment; install it there (e.g. apt-get install ripgrep) or use terminal with grep' };
        }
        try {
          if (request.target === 'files') compileNamePattern(request.pattern);
          else compilePattern(request.pattern);
        } catch (error) {
          return { error: `search_files: invalid pattern ${JSON.stringify(request.pattern)}: ${errorMessage(error)}` };
        }
        await searchBuiltin(request, { cwd: env.cwd, rootFull }, collector, ctx.signal);
        return collector.result();
      }

      const failure = await searchRipgrep(request, env, collector, ctx.signal);
      if (failure) {
        return /path not found/.test(failure.error) ? { error: `search_files: path not found or not readable: ${rootFull} (relative paths start at ${env.cwd})` } : failure;
      }
      return collector.result();
    },
  });
  return tool;
}
