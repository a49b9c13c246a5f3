/*
 * Command-line options read as getopt_long reads them: short clusters (`-rf`), values
 * attached or next (`-uroot`, `-u root`), `--name=value`, `--` and, as GNU tools and git
 * do, a long option given by any unambiguous prefix (`--recur` is `--recursive`). An
 * ambiguous prefix counts as every option it could be, so a check for `--force` holds
 * for `--forc` (the tool itself would refuse it; nothing is lost by asking).
 */

export type LongKind = 'flag' | 'value' | 'optional';

export interface OptionSpec {
  /** Short options without a value. */
  flags?: string;
  /** Short options with a value, attached or the next word. */
  values?: string;
  /** Short options whose value, if any, is attached (`-i.bak`). */
  optional?: string;
  long?: Record<string, LongKind>;
  /** Options end at the first operand (a carrier: what follows is the command). */
  stopAtOperand?: boolean;
  /** `-5`, `-KILL`: a leading dash-word that is a number or signal (nice, kill). */
  dashNumber?: boolean;
}

export interface ParsedOption {
  /** `-r` or `--recursive`; for an ambiguous prefix, every option it could be. */
  names: string[];
  value?: string;
  /** As written. */
  word: string;
}

export interface ParsedOptions {
  options: ParsedOption[];
  operands: string[];
  /** Options the spec does not know, as written. */
  unknown: string[];
  /** Index of the first word after the options (the command, for a carrier). */
  rest: number;
}

/** Long option names that `prefix` may stand for: the exact one, else every one it begins. */
export function matchLong(prefix: string, long: Record<string, LongKind>): string[] {
  if (prefix in long) return [prefix];
  return Object.keys(long).filter((name) => name.startsWith(prefix));
}

/** `-9`, `-KILL`, `-SIGTERM`, `-RTMIN+3`: a signal given as an option (so `pkill -P` stays the -P option). */
const SIGNAL_OPTION = /^-(\d+|(SIG)?(HUP|INT|QUIT|ILL|TRAP|ABRT|IOT|BUS|FPE|KILL|USR1|SEGV|USR2|PIPE|ALRM|TERM|STKFLT|CHLD|CLD|CONT|STOP|TSTP|TTIN|TTOU|URG|XCPU|XFSZ|VTALRM|PROF|WINCH|POLL|IO|PWR|SYS|UNUSED|EMT|INFO|LOST|RTMIN|RTMAX)([+-]\d+)?)$/;

export function parseOptions(args: readonly string[], spec: OptionSpec): ParsedOptions {
  const out: ParsedOptions = { options: [], operands: [], unknown: [], rest: args.length };
  const long = spec.long ?? {};
  let i = 0;
  let restSet = false;
  for (; i < args.length; i++) {
    const word = args[i];
    if (word === '--') {
      if (!restSet) {
        out.rest = i + 1;
        restSet = true;
      }
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (word.startsWith('--') && word.length > 2) {
      const eq = word.indexOf('=');
      const name = word.slice(2, eq < 0 ? undefined : eq);
      const names = matchLong(name, long);
      if (names.length === 0) {
        out.unknown.push(word);
        continue;
      }
      const kind = long[names[0]];
      let value = eq < 0 ? undefined : word.slice(eq + 1);
      if (value === undefined && kind === 'value' && names.every((n) => long[n] === 'value')) value = args[++i];
      out.options.push({ names: names.map((n) => `--${n}`), value, word });
      continue;
    }
    if (word.startsWith('-') && word.length > 1 && !word.includes('\0')) {
      if (spec.dashNumber && SIGNAL_OPTION.test(word)) {
        out.options.push({ names: ['-#'], value: word.slice(1), word });
        continue;
      }
      for (let j = 1; j < word.length; j++) {
        const letter = word[j];
        const attached = word.slice(j + 1);
        if (spec.values?.includes(letter)) {
          const value = attached !== '' ? attached : args[++i];
          out.options.push({ names: [`-${letter}`], value, word });
          break;
        }
        if (spec.optional?.includes(letter)) {
          out.options.push({ names: [`-${letter}`], value: attached || undefined, word });
          break;
        }
        if (spec.flags?.includes(letter)) out.options.push({ names: [`-${letter}`], word });
        else out.unknown.push(`-${letter}`);
      }
      continue;
    }
    if (spec.stopAtOperand) {
      out.rest = i;
      restSet = true;
      out.operands.push(...args.slice(i));
      break;
    }
    out.operands.push(word);
  }
  if (!restSet) out.rest = args.length;
  return out;
}

/** True when one of the options is (or may be, for an ambiguous prefix) any of `names`. */
export const hasOption = (parsed: ParsedOptions, ...names: string[]): boolean =>
  parsed.options.some((option) => option.names.some((name) => names.includes(name)));

/** The value of the last option named one of `names`. */
export function optionValue(parsed: ParsedOptions, ...names: string[]): string | undefined {
  let found: string | undefined;
  for (const option of parsed.options) if (option.names.some((name) => names.includes(name))) found = option.value;
  return found;
}

const flags = (...names: string[]): Record<string, LongKind> => Object.fromEntries(names.map((name) => [name, 'flag' as const]));
const values = (...names: string[]): Record<string, LongKind> => Object.fromEntries(names.map((name) => [name, 'value' as const]));
const optionals = (...names: string[]): Record<string, LongKind> => Object.fromEntries(names.map((name) => [name, 'optional' as const]));
const common = flags('help', 'version');

/** Options of the programs the rules look at (GNU coreutils, findutils, procps, git), from their manuals. */
export const PROGRAM_OPTIONS: Record<string, OptionSpec> = {
  rm: {
    flags: 'fiIrRdv',
    long: { ...common, ...flags('force', 'one-file-system', 'no-preserve-root', 'recursive', 'dir', 'verbose'), ...optionals('interactive', 'preserve-root') },
  },
  // chmod's `-r`, `-w`, `-x` are modes, not options; recursion is only -R.
  chmod: {
    flags: 'Rcfv',
    long: { ...common, ...flags('changes', 'silent', 'quiet', 'verbose', 'no-preserve-root', 'preserve-root', 'recursive'), ...values('reference') },
  },
  chown: {
    flags: 'cfvhRHLP',
    long: { ...common, ...flags('changes', 'dereference', 'no-dereference', 'silent', 'quiet', 'preserve-root', 'no-preserve-root', 'recursive', 'verbose'), ...values('from', 'reference') },
  },
  mv: {
    flags: 'bfinTuvZ',
    values: 'tS',
    long: { ...common, ...flags('force', 'interactive', 'no-clobber', 'strip-trailing-slashes', 'no-target-directory', 'verbose', 'context', 'exchange', 'no-copy', 'debug'), ...optionals('backup', 'update'), ...values('suffix', 'target-directory') },
  },
  cp: {
    flags: 'abdfiHlLnPpRrsTuvxZ',
    values: 'St',
    long: {
      ...common,
      ...flags('archive', 'attributes-only', 'copy-contents', 'dereference', 'force', 'interactive', 'link', 'no-clobber', 'no-dereference', 'parents', 'recursive', 'remove-destination', 'strip-trailing-slashes', 'symbolic-link', 'no-target-directory', 'verbose', 'one-file-system', 'debug', 'keep-directory-symlink'),
      ...optionals('backup', 'preserve', 'reflink', 'update', 'context'),
      ...values('no-preserve', 'sparse', 'suffix', 'target-directory'),
    },
  },
  ln: {
    flags: 'bdFfiLnPrsTv',
    values: 'St',
    long: { ...common, ...flags('directory', 'force', 'interactive', 'logical', 'no-dereference', 'physical', 'relative', 'symbolic', 'no-target-directory', 'verbose'), ...optionals('backup'), ...values('suffix', 'target-directory') },
  },
  install: {
    flags: 'bcCdDpsTvZ',
    values: 'gmoSt',
    long: { ...common, ...flags('compare', 'directory', 'preserve-timestamps', 'strip', 'no-target-directory', 'verbose', 'debug', 'preserve-context'), ...optionals('backup', 'context'), ...values('group', 'mode', 'owner', 'strip-program', 'suffix', 'target-directory') },
  },
  tee: { flags: 'aip', long: { ...common, ...flags('append', 'ignore-interrupts'), ...optionals('output-error') } },
  sed: {
    flags: 'nrEsuz',
    values: 'efl',
    optional: 'i',
    long: { ...common, ...values('expression', 'file', 'line-length'), ...optionals('in-place'), ...flags('quiet', 'silent', 'regexp-extended', 'separate', 'unbuffered', 'null-data', 'zero-terminated', 'posix', 'debug', 'sandbox', 'follow-symlinks') },
  },
  rsync: {
    flags: 'vqcarRbuldLkKHpEAXogDtUNOJnWxCyzhPSi',
    values: 'Tef',
    long: {
      ...common,
      ...flags('delete', 'delete-before', 'delete-during', 'delete-delay', 'delete-after', 'delete-excluded', 'remove-source-files', 'archive', 'recursive', 'verbose', 'dry-run', 'force', 'inplace', 'mkpath', 'progress', 'quiet', 'checksum', 'update', 'links', 'hard-links', 'perms', 'times', 'compress', 'partial', 'human-readable', 'stats', 'ignore-existing', 'existing', 'relative', 'no-relative', 'itemize-changes', 'sparse', 'whole-file', 'numeric-ids', 'ignore-errors', 'safe-links', 'copy-links', 'owner', 'group', 'devices', 'specials', 'acls', 'xattrs', 'executability', 'one-file-system', 'prune-empty-dirs', 'delay-updates', 'append', 'append-verify', 'backup', 'super', 'fake-super', 'omit-dir-times'),
      ...values('exclude', 'include', 'exclude-from', 'include-from', 'files-from', 'rsh', 'rsync-path', 'filter', 'backup-dir', 'suffix', 'chmod', 'chown', 'log-file', 'bwlimit', 'timeout', 'partial-dir', 'temp-dir', 'compare-dest', 'copy-dest', 'link-dest', 'max-size', 'min-size', 'max-delete', 'port', 'password-file', 'out-format', 'info', 'debug', 'usermap', 'groupmap', 'contimeout', 'modify-window', 'block-size', 'compress-level', 'skip-compress', 'iconv', 'protocol', 'checksum-choice', 'compress-choice', 'sockopts', 'outbuf', 'stop-after', 'stop-at'),
    },
  },
  kill: { values: 'sn', flags: 'lL', dashNumber: true, long: { ...common, ...values('signal', 'queue', 'timeout'), ...flags('list', 'table', 'pid', 'verbose'), ...optionals('list') } },
  pkill: {
    flags: 'cefinorvwxAH',
    values: 'dgGPstuUFq',
    dashNumber: true,
    long: {
      ...common,
      ...flags('count', 'echo', 'full', 'ignore-case', 'newest', 'oldest', 'inverse', 'exact', 'lightweight', 'logpidfile', 'ignore-ancestors', 'require-handler', 'cgroup'),
      ...values('signal', 'parent', 'pgroup', 'group', 'session', 'terminal', 'euid', 'uid', 'pidfile', 'ns', 'nslist', 'older', 'runstates', 'env', 'queue', 'delimiter'),
    },
  },
  killall: {
    flags: 'eIgilqrvwZV',
    values: 'suyonZ',
    dashNumber: true,
    long: { ...common, ...flags('exact', 'ignore-case', 'process-group', 'interactive', 'list', 'quiet', 'regexp', 'verbose', 'wait'), ...values('signal', 'user', 'younger-than', 'older-than', 'ns', 'context') },
  },
};

/** git's options before the subcommand, and those of the subcommands the rules judge. */
export const GIT_OPTIONS: Record<string, OptionSpec> = {
  '': {
    flags: 'pPv',
    values: 'Cc',
    stopAtOperand: true,
    long: {
      ...common,
      ...flags('paginate', 'no-pager', 'bare', 'no-replace-objects', 'literal-pathspecs', 'glob-pathspecs', 'noglob-pathspecs', 'icase-pathspecs', 'no-optional-locks', 'html-path', 'man-path', 'info-path', 'no-advice'),
      ...values('git-dir', 'work-tree', 'namespace', 'super-prefix', 'config-env', 'list-cmds', 'attr-source'),
      ...optionals('exec-path'),
    },
  },
  push: {
    flags: '46fnquv',
    values: 'o',
    long: {
      ...flags('all', 'branches', 'mirror', 'delete', 'tags', 'dry-run', 'porcelain', 'force', 'no-force', 'force-if-includes', 'no-force-if-includes', 'no-force-with-lease', 'no-recurse-submodules', 'thin', 'no-thin', 'set-upstream', 'progress', 'no-progress', 'prune', 'no-prune', 'verify', 'no-verify', 'follow-tags', 'no-follow-tags', 'no-signed', 'atomic', 'no-atomic', 'ipv4', 'ipv6', 'quiet', 'verbose'),
      ...optionals('force-with-lease', 'signed'),
      ...values('recurse-submodules', 'receive-pack', 'exec', 'push-option', 'repo'),
    },
  },
  reset: {
    flags: 'qpN',
    long: { ...flags('hard', 'soft', 'mixed', 'merge', 'keep', 'quiet', 'no-quiet', 'patch', 'intent-to-add', 'pathspec-file-nul', 'no-recurse-submodules', 'refresh', 'no-refresh'), ...values('pathspec-from-file'), ...optionals('recurse-submodules') },
  },
  clean: { flags: 'dfinqxX', values: 'e', long: { ...flags('force', 'interactive', 'dry-run', 'quiet'), ...values('exclude') } },
  branch: {
    flags: 'dDfmMcCralvqi',
    values: 'tu',
    long: { ...flags('delete', 'force', 'move', 'copy', 'remotes', 'all', 'list', 'verbose', 'quiet', 'ignore-case', 'create-reflog', 'edit-description', 'show-current', 'no-track', 'unset-upstream'), ...optionals('track', 'color', 'column', 'merged', 'no-merged', 'contains', 'no-contains', 'abbrev'), ...values('set-upstream-to', 'sort', 'points-at', 'format') },
  },
};
