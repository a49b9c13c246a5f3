import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../types.js';
import { errorMessage } from '../../shared/errors.js';

const args = z.strictObject({
  path: z.string().min(1).describe('File to send: absolute, or relative to the working folder (where uploads/ is)'),
  caption: z.string().nullable().default(null).describe('Text shown with the file; none by default'),
});

/**
 * `send_file(path, caption=None)`: posts a file from the session's environment into the chat
 * as the platform's own attachment (a photo where the platform shows one). The gateway pulls
 * it through the environment, so it works on every backend.
 */
export function sendFileTool(): Tool {
  return defineTool({
    name: 'send_file',
    description:
      'Send a file from the working folder (or any path here) to the user in this chat, as an attachment: ' +
      'images show as pictures, other files as downloads. Use it for charts, reports and exports you made. ' +
      'Returns name, bytes and mime_type; a file over the platform\'s size limit gives an error saying the limit.',
    args,
    async run({ path, caption }, ctx) {
      if (!ctx.sendFile) {
        return { error: 'send_file: this session has no chat to send files to (hermes chat or hermes exec); tell the user the path instead' };
      }
      try {
        return await ctx.sendFile({ path, caption: caption ?? undefined, environment: ctx.environment, signal: ctx.signal });
      } catch (error) {
        return { error: `send_file: ${errorMessage(error)}` };
      }
    },
  });
}
