import { join } from 'node:path';

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
