import type { Platform } from '../../src/gateway/platform.js';
import type { BuildAdaptersOptions } from '../index.js';
import { WEB_THREAD } from './thread-ref.js';
import { createWebChat } from './web-adapter.js';

/** The local web chat as one module: no tokens; this machine's user, behind its login. */
export const WEB: Platform<BuildAdaptersOptions> = {
  name: 'web',
  thread: WEB_THREAD,
  create: (options) => createWebChat(options),
};
