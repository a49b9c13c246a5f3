import { dirname, isAbsolute, join, normalize } from 'node:path';

/** The unit's file name under the user's systemd folder. */
export const UNIT_NAME = 'hermes-gateway.service';

/** `$XDG_CONFIG_HOME/systemd/user` (else `~/.config/systemd/user`), where a user unit lives. */
export function userUnitDir(env: NodeJS.ProcessEnv, home: string): string {
  const config = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(config, 'systemd', 'user');
}

/**
 * One word of an ExecStart or Environment line: double-quoted when it holds blanks or quotes,
 * with `%` doubled (systemd's specifier character) and `\` and `"` escaped.
 */
export function unitWord(word: string): string {
  const escaped = word.replace(/%/g, '%%');
  if (!/[\s"'\\;]/.test(escaped) && escaped !== '') return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export interface UnitOptions {
  /** The Node binary that runs the gateway (the one running now). */
  node: string;
  /** dist/src/cli/main.js of this checkout. */
  cli: string;
  /** HERMES_HOME the service uses, given as --home so the environment cannot change it. */
  hermesHome: string;
  /** PATH for the service: the installer's, so python3, bwrap and podman are found as they are now. */
  path: string;
}

/** A PATH entry that only lives while one command runs: npx's cache, npm's script helpers, temp folders. */
function transient(entry: string, tempDirs: string[]): boolean {
  if (/(^|\/)(\.npm\/)?_npx(\/|$)/.test(entry)) return true;
  if (/\/node_modules\/\.bin$/.test(entry) || /\/node-gyp-bin$/.test(entry)) return true;
  return tempDirs.some((dir) => entry === dir || entry.startsWith(`${dir}/`));
}

/**
 * The service's PATH: the installer's, without what npx or npm put there for one run
 * (`…/_npx/…`, `node_modules/.bin`, node-gyp-bin), temporary folders and relative entries,
 * each folder once; the Node running now is kept reachable.
 */
export function servicePath(path: string, options: { node: string; tempDirs: string[] }): string {
  const temps = options.tempDirs.filter((dir) => isAbsolute(dir) && dir !== '/').map((dir) => normalize(dir).replace(/\/+$/, ''));
  const kept: string[] = [];
  for (const raw of path.split(':')) {
    const entry = raw && isAbsolute(raw) ? normalize(raw).replace(/(.)\/+$/, '$1') : '';
    if (!entry || transient(entry, temps) || kept.includes(entry)) continue;
    kept.push(entry);
  }
  const nodeDir = dirname(options.node);
  if (!kept.includes(nodeDir) && !transient(nodeDir, temps)) kept.push(nodeDir);
  for (const base of ['/usr/local/bin', '/usr/bin', '/bin']) if (!kept.includes(base)) kept.push(base);
  return kept.join(':');
}

/** The text of the systemd user unit that runs `hermes gateway`. */
export function unitText(options: UnitOptions): string {
  return [
    '[Unit]',
    'Description=hermes-gateway: one AI agent from Slack, Discord, Telegram and the web chat',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[options.node, options.cli, '--home', options.hermesHome, 'gateway'].map(unitWord).join(' ')}`,
    `WorkingDirectory=${unitWord(options.hermesHome)}`,
    `Environment=${unitWord(`PATH=${options.path}`)}`,
    // The gateway stops on SIGTERM within its own 10 s deadline.
    'KillSignal=SIGTERM',
    'TimeoutStopSec=15',
    'Restart=on-failure',
    'RestartSec=5',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** What enables and (re)starts the unit, in order. */
export function enableCommands(): string[][] {
  return [
    ['systemctl', '--user', 'daemon-reload'],
    ['systemctl', '--user', 'enable', UNIT_NAME],
    ['systemctl', '--user', 'restart', UNIT_NAME],
  ];
}
