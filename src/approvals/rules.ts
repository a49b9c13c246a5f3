/*
 * The floor: commands nothing lets through — not an approval, not `approvals.mode: off`,
 * not a container backend. Each rule has an id, what it guards against, and a check that
 * returns the reason shown to the model and the user.
 */
import type { SimpleCommand } from './command.js';
import { isUnknown, showWord } from './command.js';
import { forkLoop } from './interpreter-code.js';
import { killTargets } from './gateway-kill.js';
import { PROGRAM_OPTIONS, hasOption, optionValue, parseOptions } from './options.js';
import { expandPath, isCatastrophicTarget, isDiskDevice, type PathContext } from './paths.js';
import { writeTargets } from './write-targets.js';

export interface Rule {
  id: string;
  /** What the rule guards against, in a few words. */
  why: string;
  /** The reason for this command, or undefined when the rule does not apply. */
  check(command: SimpleCommand, ctx: PathContext): string | undefined;
}

/** A target as a person reads it: the home folder as `~`. */
const shown = (word: string, ctx?: PathContext) => {
  if (word === '*') return 'everything here';
  const text = showWord(word);
  if (!ctx) return text;
  return text === ctx.home ? '~' : text.startsWith(`${ctx.home}/`) ? `~${text.slice(ctx.home.length)}` : text;
};

/** The first operand that reaches a protected folder. */
const catastrophic = (words: string[], command: SimpleCommand, ctx: PathContext) => words.find((word) => isCatastrophicTarget(word, ctx, command.cwd));

/** find's start folders: the operands before the first expression. */
export function findRoots(args: string[]): string[] {
  const roots: string[] = [];
  let i = 0;
  while (i < args.length && /^-[HLP]$|^-D$|^-O\d$/.test(args[i])) i += args[i] === '-D' ? 2 : 1;
  while (i < args.length && !/^[-(!,]/.test(args[i])) roots.push(args[i++]);
  return roots.length > 0 ? roots : ['.'];
}

const DELETERS = new Set(['rm', 'shred', 'unlink', 'rmdir', 'srm', 'wipe']);

/** find tests that choose some files (by name, path, age, size, owner, links): with one, find deletes what matches, not everything. */
const FIND_FILTERS = /^-(i?name|i?path|i?wholename|i?regex|i?lname|newer\w*|[acm](time|min|newer)|used|size|user|group|uid|gid|nouser|nogroup|perm|links|inum|samefile|empty)$/;

/** Programs that put a file system or swap on what they are given; on a plain file (`mkswap swapfile`) that is not a disk. */
const FORMATTERS = /^(mkfs(\.\w+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|newfs\w*)$/;

/** The format-disk rule: formatting, wiping signatures (`wipefs -a`) or discarding blocks of a disk. */
function formatsDisk(argv: readonly string[], cwd: string | undefined): string | undefined {
  const [name = '', ...args] = argv;
  const operands = args.filter((word) => !word.startsWith('-'));
  if (name === 'blkdiscard') return 'discards every block of a disk (blkdiscard)';
  if (name === 'wipefs') {
    // Without -a or -o wipefs only lists the signatures it finds; -n (--no-act) writes nothing.
    const writes = args.some((a) => /^-[a-zA-Z]*[ao]/.test(a) || /^--(all|offset)/.test(a)) && !args.some((a) => /^-[a-zA-Z]*n/.test(a) || a === '--no-act');
    return writes ? 'wipes the signatures of a disk (wipefs)' : undefined;
  }
  if (!FORMATTERS.test(name)) return undefined;
  // mkswap and mkfs on a plain file in the working folder make a swap file or an image, not a disk: mkfs still needs a device to be sure.
  const onFile = (cwd === undefined || !cwd.startsWith('/dev')) && operands.length > 0 && operands.every((word) => !word.startsWith('/dev/') && !isUnknown(word) && !/^[~/]/.test(word)) && /^(mkswap|mkfs(\.\w+)?|mke2fs)$/.test(name) && args.some((a) => a === '-F' || name === 'mkswap');
  return onFile ? undefined : `formats a disk (${name})`;
}

export const FLOOR_RULES: readonly Rule[] = [
  {
    id: 'recursive-delete-of-system-or-home',
    why: 'rm -r of /, a system folder or a home folder',
    check({ argv, cwd }, ctx) {
      if (argv[0] !== 'rm') return undefined;
      const parsed = parseOptions(argv.slice(1), PROGRAM_OPTIONS.rm);
      if (hasOption(parsed, '--no-preserve-root')) return 'recursive delete of / (--no-preserve-root)';
      if (!hasOption(parsed, '-r', '-R', '--recursive')) return undefined;
      const target = parsed.operands.find((operand) => isCatastrophicTarget(operand, ctx, cwd));
      return target === undefined ? undefined : `recursive delete of ${shown(target, ctx)} (the system or a home folder)`;
    },
  },
  {
    id: 'find-delete-of-system-or-home',
    why: 'find -delete or -exec rm over /, a system folder or a home folder',
    check(command, ctx) {
      const { argv } = command;
      if (argv[0] !== 'find') return undefined;
      const deletes = argv.includes('-delete') || argv.some((word, i) => /^-(exec|execdir|ok|okdir)$/.test(word) && DELETERS.has(argv[i + 1]?.slice(argv[i + 1].lastIndexOf('/') + 1) ?? ''));
      // A search that picks files by name, age, size or owner deletes those, not the tree: that asks (listed-rules.ts).
      if (!deletes || argv.some((word) => FIND_FILTERS.test(word))) return undefined;
      const target = catastrophic(findRoots(argv.slice(1)), command, ctx);
      return target === undefined ? undefined : `deletes everything under ${shown(target, ctx)} with find`;
    },
  },
  {
    id: 'recursive-permissions-of-system-or-home',
    why: 'chmod -R, chown -R or chgrp -R of /, a system folder or a home folder',
    check(command, ctx) {
      const [name, ...args] = command.argv;
      if (name !== 'chmod' && name !== 'chown' && name !== 'chgrp') return undefined;
      const parsed = parseOptions(args, name === 'chmod' ? PROGRAM_OPTIONS.chmod : PROGRAM_OPTIONS.chown);
      if (!hasOption(parsed, '-R', '--recursive')) return undefined;
      // chmod's `-w` style modes land among the unknown options; then every operand is a file.
      const modeGiven = hasOption(parsed, '--reference') || (name === 'chmod' && parsed.unknown.some((u) => /^-[rwxXst]$/.test(u)));
      const target = catastrophic(modeGiven ? parsed.operands : parsed.operands.slice(1), command, ctx);
      return target === undefined ? undefined : `recursive ${name} of ${shown(target, ctx)} (the system or a home folder)`;
    },
  },
  {
    id: 'move-away-system-or-home',
    why: 'mv of /, a system folder or a home folder',
    check(command, ctx) {
      if (command.argv[0] !== 'mv') return undefined;
      const parsed = parseOptions(command.argv.slice(1), PROGRAM_OPTIONS.mv);
      const sources = optionValue(parsed, '-t', '--target-directory') !== undefined ? parsed.operands : parsed.operands.slice(0, -1);
      const target = catastrophic(sources, command, ctx);
      return target === undefined ? undefined : `moves ${shown(target, ctx)} away (the system or a home folder)`;
    },
  },
  {
    id: 'rsync-delete-onto-system-or-home',
    why: 'rsync --delete into /, a system folder or a home folder',
    check(command, ctx) {
      if (command.argv[0] !== 'rsync') return undefined;
      const parsed = parseOptions(command.argv.slice(1), PROGRAM_OPTIONS.rsync);
      if (!hasOption(parsed, '--delete', '--delete-before', '--delete-during', '--delete-delay', '--delete-after', '--delete-excluded')) return undefined;
      const destination = parsed.operands[parsed.operands.length - 1];
      return destination !== undefined && parsed.operands.length > 1 && isCatastrophicTarget(destination, ctx, command.cwd)
        ? `rsync --delete onto ${shown(destination, ctx)} (deletes the system or a home folder)`
        : undefined;
    },
  },
  {
    id: 'format-disk',
    why: 'making a file system or swap on a disk, wiping signatures or discarding blocks',
    check: ({ argv, cwd }) => formatsDisk(argv, cwd),
  },
  {
    id: 'write-to-disk-device',
    why: 'writing raw data onto a disk device',
    check({ argv, redirects }) {
      const [name, ...args] = argv;
      if (name === 'dd') {
        const of = args.find((word) => word.startsWith('of='));
        if (of && isDiskDevice(of.slice(3))) return `dd onto the disk device ${of.slice(3)}`;
      }
      const operands = args.filter((word) => !word.startsWith('-'));
      const written = name === 'tee' || name === 'shred' || name === 'truncate' ? operands : name === 'cp' ? operands.slice(-1) : [];
      const device = written.find(isDiskDevice);
      if (device) return `writes onto the disk device ${device}`;
      const redirect = redirects.find((r) => /[>]/.test(r.op) && r.op !== '>&' && isDiskDevice(r.target));
      if (redirect) return `writes onto the disk device ${redirect.target}`;
      const sysrq = redirects.find((r) => /[>]/.test(r.op) && r.target === '/proc/sysrq-trigger');
      return sysrq ? 'writes to /proc/sysrq-trigger (reboots or halts the kernel)' : undefined;
    },
  },
  {
    id: 'power-off',
    why: 'shutting down or rebooting the machine',
    check({ argv }) {
      const [name, first] = argv;
      if (/^(shutdown|reboot|halt|poweroff|kexec)$/.test(name ?? '')) return `${name} of the machine`;
      if ((name === 'init' || name === 'telinit') && /^[06]$/.test(first ?? '')) return `${name} ${first} (power off or reboot)`;
      if ((name === 'systemctl' || name === 'loginctl') && argv.some((w) => /^(poweroff|reboot|halt|kexec|emergency|rescue|soft-reboot)$/.test(w))) return `${name} power off or reboot`;
      return undefined;
    },
  },
  {
    id: 'kill-every-process',
    why: 'kill -1 signals every process the user may signal; kill 1 signals init',
    check({ argv }) {
      if (argv[0] !== 'kill') return undefined;
      const targets = killTargets(argv.slice(1));
      if (targets.includes('-1')) return 'kills every process (kill -1)';
      // Signal 0 only asks whether the process exists.
      const probe = argv.slice(1).some((word, i, all) => word === '-0' || (/^(-s|--signal|-n)$/.test(all[i - 1] ?? '') && /^(0|SIG0)$/.test(word)));
      return targets.includes('1') && !probe ? 'signals pid 1 (init: it ends the machine or the container)' : undefined;
    },
  },
  {
    id: 'kernel-runs-a-program',
    why: 'kernel settings that make the kernel run a program as root outside every sandbox (core_pattern, modprobe, binfmt_misc, uevent_helper, release_agent)',
    check(command, ctx) {
      const write = writeTargets(command).find((target) => ESCAPE_KNOBS.test(expandPath(target, ctx, command.cwd)));
      if (write !== undefined) return `writes ${expandPath(write, ctx, command.cwd)}, which makes the kernel run a program as root on the host`;
      const key = sysctlWrites(command.argv).find((name) => ESCAPE_KEYS.test(name));
      return key === undefined ? undefined : `sysctl sets ${key}, which makes the kernel run a program as root on the host`;
    },
  },
  {
    id: 'fork-bomb-in-code',
    why: 'an endless fork loop in interpreter code',
    check: ({ argv, code }) => (code.some(forkLoop) ? `fork bomb (${argv[0]} forks in an endless loop)` : undefined),
  },
];

/** `:(){ :|:& };:` and its renamed variants (`f(){ f|f& }`, `b(){ b & b; }`), on the raw text. */
export function forkBomb(text: string): string | undefined {
  const compact = text.replace(/\s+/g, ' ');
  // Find each `() {` and read the name before it backwards: a regex that starts at the name backtracks badly on long words.
  for (const open of compact.matchAll(/\(\s*\)\s*\{/g)) {
    let start = open.index;
    while (start > 0 && compact[start - 1] === ' ') start--;
    let from = start;
    while (from > 0 && !/[\s(){};|&]/.test(compact[from - 1])) from--;
    const name = compact.slice(from, start);
    const bodyStart = open.index + open[0].length;
    const close = compact.indexOf('}', bodyStart);
    if (name === '' || close < 0) continue;
    const body = compact.slice(bodyStart, close);
    const quoted = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const calls = body.match(new RegExp(`(^|[\\s;|&])${quoted}(?=$|[\\s;|&])`, 'g')) ?? [];
    if (calls.length >= 2 && /[|&]/.test(body)) return 'fork bomb';
  }
  return undefined;
}

/** Files through which the kernel runs a program of the writer's choosing, as root, outside every namespace. */
const ESCAPE_KNOBS = /^\/proc\/sys\/kernel\/(core_pattern|modprobe|hotplug|poweroff_cmd)$|^\/proc\/sys\/fs\/binfmt_misc(\/|$)|^\/sys\/kernel\/uevent_helper$|^\/sys\/fs\/cgroup\/.*release_agent$/;
const ESCAPE_KEYS = /^(kernel\.(core_pattern|modprobe|hotplug|poweroff_cmd)|fs\.binfmt_misc(\..*)?)$/;

/** The kernel settings a `sysctl` command line sets (`-w a.b=c`, `a/b=c`), as dotted names. */
export function sysctlWrites(argv: readonly string[]): string[] {
  if (argv[0] !== 'sysctl') return [];
  return argv
    .slice(1)
    .filter((word) => !word.startsWith('-') && word.includes('='))
    .map((word) => word.slice(0, word.indexOf('=')).replace(/\//g, '.').trim());
}
