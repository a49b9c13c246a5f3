import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../types.js';
import { errorMessage } from '../../shared/errors.js';
import { checkFileWrite } from './command-guard.js';
import { writeEnvFile } from './env-files.js';

const args = z.strictObject({
  path: z.string().min(1).describe('File to write: absolute, or relative to the working folder'),
  content: z.string().describe('The complete new content of the file'),
});

/** `write_file(path, content)`: replaces a file's content, creating parent folders. */
export function writeFileTool(): Tool {
  return defineTool({
    name: 'write_file',
    description:
      'Write a file, replacing all of its content; parent folders are created. Returns path (absolute) and ' +
      'bytes_written. Use patch for targeted edits.',
    args,
    async run({ path, content }, ctx) {
      const verdict = await checkFileWrite('write_file', path, ctx);
      if (!verdict.allowed) return { error: verdict.error };
      try {
        const full = await writeEnvFile(ctx.environment, path, content, ctx.signal);
        return { path: full, bytes_written: Buffer.byteLength(content, 'utf8') };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const why = code === 'EISDIR' ? 'it is a directory' : errorMessage(error);
        return { error: `write_file: cannot write ${path} (from ${ctx.environment.cwd}): ${why}` };
      }
    },
  });
}
