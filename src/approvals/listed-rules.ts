/*
 * Risky rules for the kinds on the dangerous-command list of the system this gateway
 * re-implements (hermes-agent): package removal, a project's `.env` and config files,
 * deletes outside the home folder and /tmp, find's deletes, signals to other processes,
 * stopping services and containers, and spellings that hide what a command is. Each asks;
 * none is on the floor.
 */
import { posix } from 'node:path';
import type { SimpleCommand } from './command.js';
import { isUnknown, showWord } from './command.js';
import { isInterpreter, SHELLS } from './carriers.js';
import { killTargets } from './gateway-kill.js';
import { PROGRAM_OPTIONS, parseOptions } from './options.js';
import { expandPath, isDiskDevice, within, type PathContext } from './paths.js';
import type { Rule } from './rules.js';
import { writeTargets } from './write-targets.js';

/** Programs that delete the files they are given. */
const DELETERS = new Set(['rm', 'unlink', 'shred', 'rmdir', 'srm', 'wipe']);

/** Options of package managers that take the next word as their value (`npm --prefix DIR uninstall`). */
const PACKAGE_VALUE_OPTIONS = /^(--prefix|-C|--cwd|--dir|--proxy|--registry|--config|-c|--root|-o|--option|--target|--python|--index-url|-i)$/;

/** The first word that is not an option (nor an option's value), with its position. */
function subcommand(args: readonly string[]): { sub: string; at: number } {
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === '--') return { sub: args[i + 1] ?? '', at: i + 1 };
    if (!word.startsWith('-')) return { sub: word, at: i };
    if (PACKAGE_VALUE_OPTIONS.test(word)) i++;
  }
  return { sub: '', at: args.length };
}

/** Package managers and the subcommands that remove what they installed. */
const REMOVERS: Record<string, RegExp> = {
  apt: /^(remove|purge|autoremove|autopurge)$/,
  'apt-get': /^(remove|purge|autoremove|autopurge)$/,
  aptitude: /^(remove|purge)$/,
  dnf: /^(remove|erase|autoremove)$/,
  yum: /^(remove|erase|autoremove)$/,
  microdnf: /^(remove)$/,
  zypper: /^(remove|rm)$/,
  apk: /^(del)$/,
  snap: /^(remove)$/,
  flatpak: /^(uninstall|remove)$/,
  brew: /^(uninstall|remove|rm|autoremove)$/,
  port: /^(uninstall)$/,
  npm: /^(uninstall|unlink|remove|rm|r|un)$/,
  pnpm: /^(uninstall|remove|rm|un)$/,
  yarn: /^(remove)$/,
  bun: /^(remove|rm|uninstall)$/,
  pip: /^(uninstall)$/,
  pip3: /^(uninstall)$/,
  pipx: /^(uninstall|uninstall-all)$/,
  conda: /^(remove|uninstall)$/,
  mamba: /^(remove|uninstall)$/,
  micromamba: /^(remove|uninstall)$/,
  gem: /^(uninstall)$/,
  cargo: /^(uninstall)$/,
  choco: /^(uninstall)$/,
  winget: /^(uninstall)$/,
  'nix-env': /^(-e|--uninstall)$/,
};

/** What a package manager's command line removes, in a few words; undefined when it removes nothing. */
function packageRemoval(argv: readonly string[]): string | undefined {
  let [name = '', ...args] = argv;
  if (/^pip\d(\.\d+)?$/.test(name)) name = 'pip3';
  // `python3 -m pip uninstall x`, `uv pip uninstall x`, `yarn global remove x`.
  if (isInterpreter(name) && args[0] === '-m' && /^pip\d?$/.test(args[1] ?? '')) [name, args] = ['pip', args.slice(2)];
  if (name === 'uv' && args[0] === 'pip') [name, args] = ['pip', args.slice(1)];
  if (name === 'yarn' && args[0] === 'global') args = args.slice(1);
  if (name === 'dpkg' && args.some((a) => /^(-r|--remove|-P|--purge)$/.test(a) || /^-[a-zA-Z]*[rP]$/.test(a))) return 'dpkg removes a package';
  if (name === 'rpm' && args.some((a) => a === '-e' || a === '--erase' || /^-[a-zA-Z]*e[a-zA-Z]*$/.test(a))) return 'rpm removes a package';
  if (name === 'pacman' && args.some((a) => /^-R[a-zA-Z]*$/.test(a) || a === '--remove')) return 'pacman removes a package';
  const removes = REMOVERS[name];
  if (!removes) return undefined;
  if (name === 'nix-env') return args.some((a) => removes.test(a)) ? 'nix-env removes a package' : undefined;
  const { sub } = subcommand(args);
  if (!removes.test(sub)) return undefined;
  const global = args.some((a) => a === '-g' || a === '--global' || a === '--location=global');
  return `${name} ${sub}${global ? ' -g' : ''} removes installed software`;
}

/** A project's secrets and settings: `.env` (and `.env.local`…), `.envrc` (direnv runs it), `config.yaml`. */
const PROJECT_SETTINGS = /^(\.env(\.[^/]+)?|\.envrc|config\.ya?ml)$/;

/** The operands of rm that are not options, honouring `--`. */
function rmOperands(args: readonly string[]): { operands: string[]; flagsAfter: string | undefined } {
  const operands: string[] = [];
  let flagsAfter: string | undefined;
  let ended = false;
  for (const word of args) {
    if (!ended && word === '--') {
      ended = true;
      continue;
    }
    if (!ended && word.startsWith('-') && word !== '-') {
      if (operands.length > 0 && flagsAfter === undefined && (/^-[a-zA-Z]*[rR]/.test(word) || /^--rec/.test(word))) flagsAfter = word;
      continue;
    }
    operands.push(word);
  }
  return { operands, flagsAfter };
}

/** Scratch folders a delete may reach without asking. */
const SCRATCH = ['/tmp', '/var/tmp', '/dev/shm'];

/** kill's signal when one is given (`-9`, `-KILL`, `-s KILL`, `-n 9`, `--signal=KILL`). */
function killSignal(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === '--') return undefined;
    if (/^(-s|-n|--signal)$/.test(word)) return args[i + 1];
    if (word.startsWith('--signal=')) return word.slice('--signal='.length);
    if (/^-(\d+|[A-Z][A-Z0-9+-]*)$/.test(word)) return word.slice(1);
  }
  return undefined;
}

const isKill = (signal: string | undefined) => signal !== undefined && /^(9|(SIG)?KILL)$/i.test(signal);

export const LISTED_RULES: readonly Rule[] = [
  {
    id: 'package-removal',
    why: 'removing installed software (apt remove, dpkg -r, pip uninstall, npm uninstall -g, brew uninstall…)',
    check: ({ argv }) => packageRemoval(argv),
  },
  {
    id: 'project-secrets-or-settings',
    why: "writing a project's .env or config file (redirects, tee, sed -i, cp, mv onto them)",
    check(command) {
      const target = writeTargets(command).find((word) => !isUnknown(word) && PROJECT_SETTINGS.test(word.slice(word.lastIndexOf('/') + 1)));
      return target === undefined ? undefined : `writes ${showWord(target)} (a project's secrets or settings)`;
    },
  },
  {
    id: 'delete-outside-home-and-tmp',
    why: 'rm of an absolute path outside the home folder and /tmp, and rm with its flags after the operands',
    check({ argv, cwd }, ctx) {
      const [name = '', ...args] = argv;
      if (!DELETERS.has(name)) return undefined;
      const { operands, flagsAfter } = rmOperands(args);
      if (name === 'rm' && flagsAfter !== undefined) return `rm with ${flagsAfter} after its operands (a recursive delete spelled to read as a file name)`;
      const target = operands.find((word) => {
        if (isUnknown(word)) return false;
        const path = expandPath(word, ctx, cwd);
        return path.startsWith('/') && !within(path, ctx.home) && !SCRATCH.some((folder) => within(path, folder));
      });
      return target === undefined ? undefined : `${name} of ${showWord(expandPath(target, ctx, cwd))} (outside the home folder and /tmp)`;
    },
  },
  {
    id: 'find-or-xargs-deletes',
    why: 'find -delete, find -exec rm and xargs rm: deletes of files chosen by a search',
    check({ argv, via }) {
      const [name = '', ...args] = argv;
      if (name === 'find') {
        if (args.includes('-delete')) return 'find -delete deletes every file it matches';
        const at = args.findIndex((word, i) => /^-(exec|execdir|ok|okdir)$/.test(word) && DELETERS.has(baseName(args[i + 1] ?? '')));
        return at >= 0 ? `find ${args[at]} ${baseName(args[at + 1])} deletes every file it matches` : undefined;
      }
      return via.includes('xargs') && DELETERS.has(name) ? `xargs ${name} deletes the files its input names` : undefined;
    },
  },
  {
    id: 'signal-other-processes',
    why: 'pkill and killall (every process of that name, others\' among them), kill -9 and kill of a process group',
    check({ argv }) {
      const [name = '', ...args] = argv;
      if (name === 'pkill' || name === 'killall') {
        if (args.some((a) => /^(-l|--list|-V|--version|--help|-0|--signal=0)$/.test(a))) return undefined;
        const pattern = args.filter((a) => !a.startsWith('-')).pop();
        return `${name} signals every process that matches${pattern === undefined ? '' : ` ${showWord(pattern)}`} (processes the session did not start among them)`;
      }
      if (name !== 'kill' || args.some((a) => /^(-l|-L|--list|--table)$/.test(a))) return undefined;
      if (isKill(killSignal(args))) return 'kill -9 ends a process without letting it clean up';
      const group = killTargets(args).find((target) => /^-\d+$/.test(target));
      return group !== undefined ? `kill ${group} signals a whole process group` : undefined;
    },
  },
  {
    id: 'stop-services-or-containers',
    why: 'restarting services, stopping or restarting the gateway, stopping containers',
    check({ argv }) {
      const [name = '', ...args] = argv;
      let { sub, at } = subcommand(args);
      if (name === 'systemctl' && /^(restart|try-restart|reload-or-restart|try-reload-or-restart|condrestart)$/.test(sub)) return `systemctl ${sub} interrupts a running service${args.slice(at + 1).some((a) => /hermes/.test(a)) ? ' (the gateway itself)' : ''}`;
      if (name === 'service' && /^(stop|restart|force-reload)$/.test(args[1] ?? '')) return `service ${args[0]} ${args[1]} stops a running service`;
      if (/^hermes(-gateway)?$/.test(name)) {
        const words = args.filter((a, i) => !a.startsWith('-') && !/^(--home|-p|--profile|--config|-c)$/.test(args[i - 1] ?? ''));
        if (words[0] === 'gateway' && /^(stop|restart|uninstall)$/.test(words[1] ?? '')) return `hermes gateway ${words[1]} stops the gateway (and every running turn)`;
        if (words[0] === 'update') return 'hermes update restarts the gateway (and every running turn)';
      }
      if (name === 'launchctl' && /^(stop|kickstart|bootout|unload|kill|disable|remove)$/.test(sub)) return `launchctl ${sub} stops or restarts a service`;
      if (/^(docker|podman|nerdctl)$/.test(name)) {
        ({ sub, at } = engineSubcommand(args));
        const compose = sub === 'compose' ? composeVerb(args.slice(at + 1)) : undefined;
        if (compose !== undefined && /^(down|stop|kill|restart|rm)$/.test(compose)) return `${name} compose ${compose} stops the project's containers`;
        if (/^(stop|kill|restart|pause)$/.test(sub)) return `${name} ${sub} stops a running container`;
      }
      if (name === 'docker-compose' && /^(down|stop|kill|restart|rm)$/.test(composeVerb(args))) return `docker-compose ${sub} stops the project's containers`;
      return undefined;
    },
  },
  {
    id: 'read-a-disk',
    why: 'dd or cat reading a whole disk device (everything on it, deleted files and other users\' data included)',
    check({ argv, redirects }) {
      const [name = '', ...args] = argv;
      const input = name === 'dd' ? args.find((a) => a.startsWith('if='))?.slice(3) : undefined;
      const read = [input, ...redirects.filter((r) => r.op === '<').map((r) => r.target)].find((word) => word !== undefined && isDiskDevice(word));
      return read === undefined ? undefined : `reads the disk device ${showWord(read)} (everything on it)`;
    },
  },
  {
    id: 'look-alike-program-name',
    why: 'a program name with non-ASCII letters (a look-alike of another program)',
    check({ path }) {
      // A name that folds to ASCII (full-width `ｌｓ`) is judged as it reads on screen (assess.ts); one that does not is a look-alike.
      // eslint-disable-next-line no-control-regex
      return /[^\x00-\x7f]/.test(path.normalize('NFKC')) && !isUnknown(path) ? `the program name ${showWord(path)} has non-ASCII letters (a look-alike of another program's name)` : undefined;
    },
  },
];

/** Container engines' global options that take a value (`docker --log-level debug stop x`). */
const ENGINE_VALUE_OPTIONS = /^(-H|--host|-c|--context|-l|--log-level|--config|--tlscacert|--tlscert|--tlskey|--url|--connection|--identity|--root|--runroot|--storage-driver|--cgroup-manager|--namespace|-n|--address|-a)$/;

/** A container engine's subcommand after its global options, with its position. */
function engineSubcommand(args: readonly string[]): { sub: string; at: number } {
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === '--') return { sub: args[i + 1] ?? '', at: i + 1 };
    if (!word.startsWith('-')) return { sub: word, at: i };
    if (ENGINE_VALUE_OPTIONS.test(word)) i++;
  }
  return { sub: '', at: args.length };
}

/** docker compose's verb after its global options (`-f prod.yml`, `-p name`, `--env-file x`). */
function composeVerb(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('-')) return args[i];
    if (/^(-f|--file|-p|--project-name|--env-file|--profile|--project-directory|--ansi|--progress|--parallel)$/.test(args[i])) i++;
  }
  return '';
}

const baseName = (word: string) => word.slice(word.lastIndexOf('/') + 1);

/** chmod modes that make a file executable: `+x`, `u+x`, `a+rx`, or an octal mode with an execute bit. */
const EXECUTABLE_MODE = /^([ugoa]*\+[rwxXst]*x|0?[0-7]?[1357][0-7]{2}|0?[0-7]?[0-7][1357][0-7]|0?[0-7]?[0-7]{2}[1357])$/;

/** `chmod +x x && ./x`: a later command runs a file an earlier one made executable (what it holds is not read). */
export function runsFileMadeExecutable(commands: readonly SimpleCommand[], ctx: PathContext): string | undefined {
  const made = new Set<string>();
  const where = (word: string, cwd: string | undefined) => posix.normalize(expandPath(word, ctx, cwd));
  for (const command of commands) {
    const [name = '', ...args] = command.argv;
    if (name === 'chmod') {
      const parsed = parseOptions(args, PROGRAM_OPTIONS.chmod);
      if (EXECUTABLE_MODE.test(parsed.operands[0] ?? '')) for (const file of parsed.operands.slice(1)) made.add(where(file, command.cwd));
      continue;
    }
    if (made.size === 0) continue;
    const runs = SHELLS.has(name) || isInterpreter(name) ? [command.path, ...args.filter((w) => !w.startsWith('-')).slice(0, 1)] : [command.path];
    // The folder a later command runs in is not always known (`chmod +x /tmp/x.sh && ./x.sh` after a cd): a file of the same name counts.
    const names = new Set([...made].map((path) => posix.basename(path)));
    const hit = runs.find((word) => (word.includes('/') || SHELLS.has(name) || isInterpreter(name) ? made.has(where(word, command.cwd)) || (word.startsWith('./') && names.has(posix.basename(word))) : false));
    if (hit) return `runs ${showWord(hit)}, which it just made executable (what it holds is not read)`;
  }
  return undefined;
}
