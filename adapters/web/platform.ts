import type { Platform } from '../../src/gateway/platform.js';
import type { BuildAdaptersOptions } from '../index.js';
import { WEB_THREAD } from './thread-ref.js';
import { createWebChat } from './web-adapter.js';
import { webConfig } from './config.js';

/** The local web chat as one module: no tokens; this machine's user, behind its login. */
export const WEB: Platform<BuildAdaptersOptions> = {
  name: 'web',
  thread: WEB_THREAD,
  create: (options) => createWebChat(options),
  // Loopback is this machine's user alone; any other address needs the token's login.
  readiness: (config) => {
    const web = webConfig(config);
    const loopback = ['127.0.0.1', 'localhost', '::1'].includes(web.host);
    return {
      enabled: web.enabled,
      ready: loopback || (web.token !== '' && web.auth !== 'none'),
      detail: loopback
        ? `http://${web.host}:${web.port}, ${web.auth === 'none' ? 'no login (platforms.web.auth: none): every user of this machine can use it' : 'login with the token in the address hermes gateway prints'}`
        : `listens on ${web.host}: needs platforms.web.token${web.auth === 'none' ? ' and no platforms.web.auth: none' : ''}`,
      fix: 'set platforms.web.token, or platforms.web.host: 127.0.0.1',
    };
  },
};
