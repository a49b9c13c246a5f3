import type { SimpleCommand } from './shell-parse.js';
import { expandPath, globParent, isCatastrophicTarget, within, type PathContext } from './paths.js';

/** A reason in a few words, or undefined when the rule does not apply. */
export type Rule = (command: SimpleCommand, ctx: PathContext) => string | undefined;

/** Splits `-rf`, `--recursive` style options from the operands (everything after `--` is an operand). */
export function splitArgs(args: string[]): { flags: string[]; operands: string[] } {
  const flags: string[] = [];
  const operands: string[] = [];
  let done = false;
  for (const arg of args) {
    if (!done && arg === '--') done = true;
    else if (!done && arg.startsWith('-') && arg.length > 1) flags.push(arg);
    else operands.push(arg);
  }
  return { flags, operands };
}

const hasShortFlag = (flags: string[], letters: string) =>
  flags.some((flag) => !flag.startsWith('--') && [...letters].some((letter) => flag.slice(1).includes(letter)));

const isRecursive = (flags: string[]) => hasShortFlag(flags, 'rR') || flags.includes('--recursive');

/** /dev entries that are not disks. */
const HARMLESS_DEVICES = /^\/dev\/(null|zero|full|random|urandom|stdout|stderr|stdin|tty\w*|pts\/\d+|fd\/\d+|shm(\/.*)?)$/;
const isDiskDevice = (path: string) => path.startsWith('/dev/') && !HARMLESS_DEVICES.test(path);

const INTERPRETERS = /^(sh|bash|zsh|dash|ksh|ash|fish|python[\d.]*|perl|ruby|node|php)$/;
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https']);

/* ---------------------------------------------------------------- the floor */

const rmRoot: Rule = ({ argv }, ctx) => {
  if (argv[0] !== 'rm') return undefined;
  const { flags, operands } = splitArgs(argv.slice(1));
  if (flags.includes('--no-preserve-root')) return 'recursive delete of / (--no-preserve-root)';
  if (!isRecursive(flags)) return undefined;
  const target = operands.find((operand) => isCatastrophicTarget(operand, ctx));
  return target === undefined ? undefined : `recursive delete of ${target === '*' ? 'everything here' : target} (the system or the home folder)`;
};

const findDelete: Rule = ({ argv }, ctx) => {
  if (argv[0] !== 'find') return undefined;
  const deletes = argv.includes('-delete') || argv.some((word, i) => (word === '-exec' || word === '-execdir') && ['rm', '/bin/rm'].includes(argv[i + 1]));
  if (!deletes) return undefined;
  const roots = argv.slice(1).filter((word, i, all) => !word.startsWith('-') && (i === 0 || !all[i - 1].startsWith('-')));
  const target = roots.find((root) => isCatastrophicTarget(root, ctx));
  return target === undefined ? undefined : `deletes everything under ${target} with find`;
};

const recursivePermissions: Rule = ({ argv }, ctx) => {
  if (!['chmod', 'chown', 'chgrp'].includes(argv[0])) return undefined;
  const { flags, operands } = splitArgs(argv.slice(1));
  if (!isRecursive(flags)) return undefined;
  const target = operands.slice(1).find((operand) => isCatastrophicTarget(operand, ctx));
  return target === undefined ? undefined : `recursive ${argv[0]} of ${target} (the system or the home folder)`;
};

const makeFilesystem: Rule = ({ argv }) =>
  /^(mkfs(\.\w+)?|mke2fs|mkswap|wipefs|mkdosfs|mkntfs)$/.test(argv[0] ?? '') ? `formats a disk (${argv[0]})` : undefined;

const diskWrite: Rule = ({ argv, redirects }) => {
  if (argv[0] === 'dd') {
    const of = argv.find((word) => word.startsWith('of='));
    if (of && isDiskDevice(of.slice(3))) return `dd onto the disk device ${of.slice(3)}`;
  }
  const { operands } = splitArgs(argv.slice(1));
  const written = argv[0] === 'tee' || argv[0] === 'shred' ? operands : argv[0] === 'cp' ? operands.slice(-1) : [];
  const device = written.find(isDiskDevice);
  if (device) return `writes onto the disk device ${device}`;
  const redirect = redirects.find((r) => r.op !== '<' && r.op !== '<<' && r.op !== '<<<' && isDiskDevice(r.target));
  return redirect ? `writes onto the disk device ${redirect.target}` : undefined;
};

const powerOff: Rule = ({ argv }) => {
  const [name, first] = argv;
  if (/^(shutdown|reboot|halt|poweroff|kexec)$/.test(name ?? '')) return `${name} of the machine`;
  if ((name === 'init' || name === 'telinit') && /^[06]$/.test(first ?? '')) return `${name} ${first} (power off or reboot)`;
  if (name === 'systemctl' && argv.some((w) => /^(poweroff|reboot|halt|kexec|emergency|rescue)$/.test(w))) return 'systemctl power off or reboot';
  return undefined;
};

const killEverything: Rule = ({ argv }) =>
  // `kill -9 -1`, `kill -s KILL -1`, `kill -- -1`: pid -1 is every process the user may signal.
  argv[0] === 'kill' && argv.length >= 3 && argv[argv.length - 1] === '-1' ? 'kills every process (kill -1)' : undefined;

/** Commands nothing lets through: not approval, not `approvals.mode: off`, not a container backend. */
export const FLOOR_RULES: Rule[] = [rmRoot, findDelete, recursivePermissions, makeFilesystem, diskWrite, powerOff, killEverything];

/** `:(){ :|:& };:` and its renamed variants, on the raw text with the spaces removed. */
export function forkBomb(text: string): string | undefined {
  const compact = text.replace(/\s+/g, '');
  const match = /([^\s(){};|&]+)\(\)\{[^}]*?([^\s(){};|&]+)\|([^\s(){};|&]+)&?[^}]*\}/.exec(compact);
  if (match && match[1] === match[2] && match[2] === match[3]) return 'fork bomb';
  return undefined;
}

/* ---------------------------------------------------------------- risky */

const gitDestructive: Rule = ({ argv }) => {
  if (argv[0] !== 'git') return undefined;
  // Skip git's own options (`git -C dir reset --hard`).
  let i = 1;
  while (i < argv.length && argv[i].startsWith('-')) i += ['-C', '-c', '--git-dir', '--work-tree'].includes(argv[i]) ? 2 : 1;
  const [sub, ...rest] = argv.slice(i);
  const { flags, operands } = splitArgs(rest);
  if (sub === 'reset' && flags.includes('--hard')) return 'git reset --hard discards uncommitted work';
  if (sub === 'clean' && (hasShortFlag(flags, 'f') || flags.includes('--force'))) return 'git clean -f deletes untracked files';
  if (sub === 'push' && (hasShortFlag(flags, 'f') || flags.some((f) => /^--(force|force-with-lease|mirror|delete)/.test(f)) || operands.some((o) => o.startsWith('+') || o.startsWith(':')))) {
    return 'git push rewrites or deletes remote history';
  }
  if ((sub === 'checkout' || sub === 'restore') && operands.includes('.') ) return `git ${sub} . discards uncommitted changes`;
  if (sub === 'branch' && (flags.includes('-D') || (hasShortFlag(flags, 'd') && hasShortFlag(flags, 'f')))) return 'git branch -D deletes an unmerged branch';
  if (sub === 'stash' && (operands[0] === 'drop' || operands[0] === 'clear')) return `git stash ${operands[0]} deletes stashed work`;
  return undefined;
};

const worldWritable: Rule = ({ argv }) => {
  if (argv[0] === 'chmod') {
    const { flags, operands } = splitArgs(argv.slice(1));
    const mode = operands[0] ?? '';
    if (/^0?[0-7]?777$/.test(mode) || /^(a|ugo|o)\+[rwx]*w/.test(mode)) return `chmod ${isRecursive(flags) ? '-R ' : ''}${mode} makes files writable by everyone`;
  }
  if ((argv[0] === 'chown' || argv[0] === 'chgrp') && isRecursive(splitArgs(argv.slice(1)).flags)) return `recursive ${argv[0]}`;
  return undefined;
};

/** `sh`, `sudo bash`, `python3 -`, `bash -s -- x`: the interpreter runs what arrives on stdin (not `python3 -m json.tool`). */
function runsStdin(argv: string[]): boolean {
  const rest = argv.slice(1);
  const dashDash = rest.indexOf('--');
  const own = dashDash >= 0 ? rest.slice(0, dashDash) : rest;
  if (own.includes('-') || own.some((word) => /^-[a-z]*s[a-z]*$/.test(word) && !word.startsWith('--'))) return true;
  if (own.some((word) => /^-[a-zA-Z]*[cmeE]$/.test(word))) return false;
  return !own.some((word) => !word.startsWith('-'));
}

const downloadToShell: Rule = (command) => {
  const name = command.argv[0] ?? '';
  if (INTERPRETERS.test(name) && runsStdin(command.argv) && command.pipedFrom.some((earlier) => DOWNLOADERS.has(earlier.argv[0] ?? ''))) {
    return `pipes a download into ${name}`;
  }
  if (INTERPRETERS.test(name) && command.substituted.some((program) => DOWNLOADERS.has(program))) {
    return `runs a download with ${name}`;
  }
  return undefined;
};

/** The folders and files a command should not write without the user knowing. */
function sensitiveWrite(path: string, ctx: PathContext): string | undefined {
  const full = expandPath(path, ctx);
  if (within(full, `${ctx.home}/.ssh`)) return `writes to ${full.replace(ctx.home, '~')} (SSH keys and access)`;
  if (full === `${ctx.hermesHome}/.env`) return `writes to ${full} (the gateway's secrets)`;
  if (/\/\.(bashrc|bash_profile|profile|zshrc|zprofile|bash_login)$/.test(full) && full.startsWith(ctx.home)) return `writes to ${full.replace(ctx.home, '~')} (runs at every login)`;
  if (within(full, '/etc') && full !== '/etc') return `writes under /etc (${full})`;
  return undefined;
}

/** Programs whose operands they may write; for copy-like ones only the destination counts. */
const WRITERS = new Set(['tee', 'touch', 'truncate', 'rm', 'shred', 'chmod', 'chown', 'ln', 'sed', 'perl', 'mkdir', 'rmdir', 'unlink', 'ssh-keygen']);
const COPIERS = new Set(['cp', 'mv', 'install', 'rsync', 'scp']);

const writesSensitive: Rule = ({ argv, redirects }, ctx) => {
  for (const redirect of redirects) {
    if (redirect.op.includes('>')) {
      const reason = sensitiveWrite(redirect.target, ctx);
      if (reason) return reason;
    }
  }
  const name = argv[0] ?? '';
  const { operands } = splitArgs(argv.slice(1));
  let targets: string[] = [];
  if (COPIERS.has(name)) targets = operands.slice(-1);
  else if (name === 'dd') targets = argv.filter((w) => w.startsWith('of=')).map((w) => w.slice(3));
  else if (name === 'sed' || name === 'perl') targets = argv.some((w) => /^-\w*i/.test(w) || w.startsWith('--in-place')) ? operands : [];
  else if (WRITERS.has(name)) targets = operands;
  for (const target of targets) {
    const reason = sensitiveWrite(target, ctx);
    if (reason) return reason;
  }
  return undefined;
};

const wideDelete: Rule = ({ argv }, ctx) => {
  if (argv[0] !== 'rm') return undefined;
  const { flags, operands } = splitArgs(argv.slice(1));
  if (!isRecursive(flags)) return undefined;
  const target = operands.find((operand) => {
    const path = globParent(expandPath(operand, ctx));
    return path.startsWith('/') && !within(path, '/tmp') || path.split('/').includes('..') || path === '*' || path === '.';
  });
  return target === undefined ? undefined : `recursive delete of ${target}`;
};

const serviceStop: Rule = ({ argv }) => {
  if (argv[0] === 'systemctl' && argv.some((w) => /^(stop|disable|mask|kill)$/.test(w))) return 'stops or disables a system service';
  if (argv[0] === 'crontab' && argv.includes('-r')) return 'crontab -r deletes every cron job';
  return undefined;
};

/** Commands that run only after the user approves them. */
export const RISKY_RULES: Rule[] = [gitDestructive, worldWritable, downloadToShell, writesSensitive, wideDelete, serviceStop];

/** Risky patterns seen in the raw text (SQL inside a client's argument, for instance). */
export function riskyText(text: string): string | undefined {
  if (/\b(drop\s+(table|database|schema)|truncate\s+table)\b/i.test(text)) return 'drops or empties a database table';
  if (/\bdelete\s+from\s+\w+\s*(;|"|'|$)/i.test(text)) return 'deletes every row of a table (DELETE without WHERE)';
  return undefined;
}
