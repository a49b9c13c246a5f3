import { buildChildEnv, childSource } from '../environments/child-env.js';
import type { Logger } from '../shared/logger.js';

export interface ScriptEnvOptions {
  rpcAddress: string;
  rpcToken: string;
  /** Folder holding hermes_tools.py, put first on PYTHONPATH. */
  stagingDir: string;
  passthrough: Iterable<string>;
  logger?: Logger;
  source?: NodeJS.ProcessEnv;
}

/**
 * The Python settings every script and kernel gets, local or remote: UTF-8 mode (open(),
 * pipes and file names in UTF-8 whatever the locale, as the system we implement sets it),
 * UTF-8 standard streams, unbuffered output, no .pyc files.
 */
export const PYTHON_CHILD_ENV: Readonly<Record<string, string>> = {
  PYTHONUTF8: '1',
  PYTHONIOENCODING: 'utf-8',
  PYTHONUNBUFFERED: '1',
  PYTHONDONTWRITEBYTECODE: '1',
};

/** The scrubbed environment of a script or kernel, plus the RPC address and Python settings. */
export function scriptEnv(options: ScriptEnvOptions): Record<string, string> {
  const inherited = (options.source ?? childSource()).PYTHONPATH;
  return buildChildEnv({
    source: options.source,
    passthrough: options.passthrough,
    logger: options.logger,
    label: 'execute_code',
    extra: {
      HERMES_RPC_SOCKET: options.rpcAddress,
      HERMES_RPC_TOKEN: options.rpcToken,
      PYTHONPATH: inherited ? `${options.stagingDir}:${inherited}` : options.stagingDir,
      ...PYTHON_CHILD_ENV,
    },
  });
}
