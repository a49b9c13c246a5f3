import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { pathsFor, readEnvironment } from '../../config/index.js';
import { packageRoot } from '../../shared/package-root.js';
import { homeOption } from '../common.js';
import { UNIT_NAME, enableCommands, servicePath, unitText, userUnitDir } from '../systemd-unit.js';

interface InstallOptions {
  enable: boolean;
}

/** `hermes gateway install`: writes the systemd user unit, prints it, and enables it with systemctl when there is one. */
export function registerGatewayInstall(gateway: Command): void {
  gateway
    .command('install')
    .description(`write the systemd user unit ${UNIT_NAME} (printed), then enable and start it with systemctl --user (printed instead where there is no systemctl)`)
    .option('--no-enable', 'write and print the unit, and print the systemctl commands without running them')
    .action(async (options: InstallOptions, command: Command) => {
      const paths = pathsFor(homeOption(command));
      const env = readEnvironment();
      const dir = userUnitDir(env, homedir());
      const file = join(dir, UNIT_NAME);
      const text = unitText({
        node: process.execPath,
        cli: join(packageRoot(), 'dist', 'src', 'cli', 'main.js'),
        hermesHome: paths.home,
        // npx's temporary folders and the like are gone once this command ends: not in the service's PATH.
        path: servicePath(env.PATH ?? '', { node: process.execPath, tempDirs: ['/tmp', '/var/tmp', tmpdir()] }),
      });
      mkdirSync(paths.home, { recursive: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, text);
      console.log(`wrote ${file}:\n\n${text}`);
      const commands = enableCommands();
      const show = (words: string[]) => words.join(' ');
      const { findExecutable } = await import('../../environments/index.js');
      const systemctl = options.enable ? findExecutable('systemctl') : undefined;
      if (!systemctl) {
        console.log(`${options.enable ? 'systemctl is not on PATH; ' : ''}to enable and start it:\n${commands.map((words) => `  ${show(words)}`).join('\n')}`);
        console.log(lingerHint());
        return;
      }
      const { execa } = await import('execa');
      for (const [index, [, ...args]] of commands.entries()) {
        console.log(`$ ${show(['systemctl', ...args])}`);
        const run = await execa(systemctl, args, { reject: false, stdin: 'ignore', all: true, timeout: 60_000 });
        if (run.all) console.log(run.all);
        if (run.exitCode !== 0) {
          // Said exactly: what is left, from the command that failed on, once a user bus is there.
          const left = [...commands.slice(index).map(show)];
          console.log(
            `the unit is written at ${file}; systemctl --user needs a user session bus (log in on a terminal or over ssh as this user, ` +
              `or run loginctl enable-linger ${userName()} as root), then run:\n${left.map((line) => `  ${line}`).join('\n')}`,
          );
          throw new Error(`gateway install: systemctl ${args.join(' ')} failed (exit ${run.exitCode ?? 'none'}); the unit is written at ${file}: run the commands printed above once a user session bus is there`);
        }
      }
      console.log(`${UNIT_NAME} is enabled and running; its output: journalctl --user -u ${UNIT_NAME} -f`);
      console.log(lingerHint());
    });
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return '$USER';
  }
}

function lingerHint(): string {
  return 'To keep it running while you are logged out: loginctl enable-linger $USER';
}
