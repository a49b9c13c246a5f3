/*
 * Carriers: programs that run another command (`sudo`, `env`, `timeout`, `xargs`, `su -c`,
 * `find -exec`, `bash -c`, …). Each is data: its options (so an option it does not know
 * fails closed instead of hiding the command), the positionals before the command, and
 * which option or argument carries a shell script.
 */
import { UNKNOWN, isUnknown, showWord, type Finding, type ProgramSource, type Stdin } from './command.js';
import { hasOption, optionValue, parseOptions, type LongKind, type OptionSpec } from './options.js';

const flags = (...names: string[]): Record<string, LongKind> => Object.fromEntries(names.map((name) => [name, 'flag' as const]));
const values = (...names: string[]): Record<string, LongKind> => Object.fromEntries(names.map((name) => [name, 'value' as const]));
const optionals = (...names: string[]): Record<string, LongKind> => Object.fromEntries(names.map((name) => [name, 'optional' as const]));
const common = flags('help', 'version');

export interface CarrierSpec {
  options: OptionSpec;
  /** Operands before the command: `timeout 10 cmd` (1), `flock file cmd` (1), `chrt 5 cmd` (1). */
  positionals?: number;
  /** Options whose value is a shell script (`su -c`, `flock -c`, `script -c`). */
  script?: string[];
  /** Options after which it runs nothing (`sudo -l`, `command -v`). */
  noRun?: string[];
  /** It joins its operands and runs them with `sh -c` (`watch`, `ssh`). */
  joins?: boolean;
  /** Leading `NAME=value` operands are variables (`env`). */
  assignments?: boolean;
}

/** Every carrier the assessment looks through, with the options its manual lists. */
export const CARRIERS: Record<string, CarrierSpec> = {
  sudo: {
    options: {
      flags: 'AbBEeHiKklNnPSsVv',
      values: 'aCcDgpRrTtUu',
      optional: 'h',
      stopAtOperand: true,
      long: {
        ...common,
        ...flags('askpass', 'background', 'bell', 'edit', 'set-home', 'login', 'remove-timestamp', 'reset-timestamp', 'list', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'validate'),
        ...values('auth-type', 'close-from', 'chdir', 'group', 'login-class', 'prompt', 'chroot', 'role', 'type', 'command-timeout', 'other-user', 'user'),
        ...optionals('preserve-env', 'host'),
      },
    },
    noRun: ['-l', '--list', '-v', '--validate', '-V', '--version', '-K', '--remove-timestamp'],
  },
  doas: { options: { flags: 'Lns', values: 'aCu', stopAtOperand: true } },
  env: {
    options: {
      flags: 'i0v',
      values: 'uCSa',
      stopAtOperand: true,
      long: { ...common, ...flags('ignore-environment', 'null', 'debug', 'list-signal-handling'), ...values('unset', 'chdir', 'split-string', 'argv0'), ...optionals('block-signal', 'default-signal', 'ignore-signal') },
    },
    assignments: true,
  },
  nohup: { options: { stopAtOperand: true, long: common } },
  nice: { options: { values: 'n', stopAtOperand: true, dashNumber: true, long: { ...common, ...values('adjustment') } } },
  timeout: { options: { flags: 'v', values: 'ks', stopAtOperand: true, long: { ...common, ...flags('foreground', 'preserve-status', 'verbose'), ...values('kill-after', 'signal') } }, positionals: 1 },
  stdbuf: { options: { values: 'ioe', stopAtOperand: true, long: { ...common, ...values('input', 'output', 'error') } } },
  setsid: { options: { flags: 'cfw', stopAtOperand: true, long: { ...common, ...flags('ctty', 'fork', 'wait') } } },
  ionice: { options: { flags: 'tPu', values: 'cn', stopAtOperand: true, long: { ...common, ...values('class', 'classdata'), ...flags('ignore') } }, noRun: ['-p', '--pid'] },
  chrt: { options: { flags: 'abdfiormRv', values: 'TPD', stopAtOperand: true, long: { ...common, ...flags('all-tasks', 'batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'max', 'verbose'), ...values('sched-runtime', 'sched-period', 'sched-deadline') } }, positionals: 1, noRun: ['-p', '--pid', '-m', '--max'] },
  taskset: { options: { flags: 'ac', stopAtOperand: true, long: { ...common, ...flags('all-tasks', 'cpu-list') } }, positionals: 1, noRun: ['-p', '--pid'] },
  time: { options: { flags: 'apqvV', values: 'fo', stopAtOperand: true, long: { ...common, ...flags('append', 'portability', 'quiet', 'verbose'), ...values('format', 'output') } } },
  command: { options: { flags: 'pvV', stopAtOperand: true }, noRun: ['-v', '-V'] },
  builtin: { options: { stopAtOperand: true } },
  exec: { options: { flags: 'cl', values: 'a', stopAtOperand: true } },
  unbuffer: { options: { flags: 'p', stopAtOperand: true } },
  caffeinate: { options: { flags: 'dimsu', values: 'tw', stopAtOperand: true } },
  catchsegv: { options: { stopAtOperand: true } },
  watch: {
    options: { flags: 'bceghprtwxC', values: 'nq', optional: 'd', stopAtOperand: true, long: { ...common, ...flags('beep', 'color', 'no-color', 'errexit', 'chgexit', 'no-title', 'no-wrap', 'no-rerun', 'exec', 'precise'), ...values('interval', 'equexit'), ...optionals('differences') } },
    joins: true,
  },
  flock: { options: { flags: 'sexnouFv', values: 'wEc', stopAtOperand: true, long: { ...common, ...flags('shared', 'exclusive', 'unlock', 'nonblock', 'close', 'no-fork', 'verbose'), ...values('timeout', 'conflict-exit-code', 'command') } }, positionals: 1, script: ['-c', '--command'] },
  chroot: { options: { stopAtOperand: true, long: { ...common, ...values('userspec', 'groups'), ...flags('skip-chdir') } }, positionals: 1 },
  strace: { options: { flags: 'cCdDfFhikqrtTvVwxyYzZ', values: 'abeEIoOpPsSuUX', stopAtOperand: true, long: { ...common, ...values('output', 'trace', 'signal', 'status', 'attach', 'user', 'env', 'string-limit') } }, noRun: ['-p', '--attach'] },
  ltrace: { options: { flags: 'bcCfhiLrStTV', values: 'aAeFlnopsuwxD', stopAtOperand: true, long: common } },
  unshare: {
    options: {
      flags: 'fUimnpuCTrcS',
      values: 'RwGl',
      stopAtOperand: true,
      long: { ...common, ...optionals('mount', 'uts', 'ipc', 'net', 'pid', 'user', 'cgroup', 'time', 'kill-child', 'mount-proc', 'map-root-user', 'map-current-user', 'map-user', 'map-group', 'map-users', 'map-groups'), ...flags('fork', 'map-auto', 'keep-caps', 'map-root-user', 'map-current-user'), ...values('propagation', 'setgroups', 'root', 'wd', 'setuid', 'setgid', 'monotonic', 'boottime') },
    },
  },
  nsenter: { options: { flags: 'aFZ', values: 'tSG', optional: 'muinpUCTrw', stopAtOperand: true, long: { ...common, ...values('target', 'setuid', 'setgid'), ...optionals('mount', 'uts', 'ipc', 'net', 'pid', 'user', 'cgroup', 'time', 'root', 'wd'), ...flags('all', 'no-fork', 'follow-context', 'preserve-credentials') } } },
  'systemd-run': {
    options: {
      flags: 'tPqGdSr',
      values: 'uEpMH',
      stopAtOperand: true,
      long: { ...common, ...flags('user', 'system', 'scope', 'pty', 'pipe', 'quiet', 'wait', 'collect', 'same-dir', 'shell', 'remain-after-exit', 'no-block', 'no-ask-password', 'send-sighup'), ...values('unit', 'property', 'description', 'slice', 'uid', 'gid', 'nice', 'working-directory', 'setenv', 'service-type', 'on-calendar', 'on-active', 'on-boot', 'machine', 'host') },
    },
  },
  script: { options: { flags: 'aefqm', values: 'cEoTIOB', optional: 't', long: { ...common, ...flags('append', 'return', 'flush', 'force', 'quiet'), ...values('command', 'echo', 'output-limit', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format'), ...optionals('timing') } }, script: ['-c', '--command'], noRun: ['*'] },
  ssh: { options: { flags: '46AaCfGgKkMNnqsTtVvXxYy', values: 'BbcDEeFIiJLlmOoPpQRSWw', stopAtOperand: true }, positionals: 1, joins: true },
  busybox: { options: { stopAtOperand: true } },
  toybox: { options: { stopAtOperand: true } },
};

/** sudo's options that work without a terminal or open a root shell: the password from stdin or a helper, a shell, a login. */
function sudoPrivilege(parsed: ReturnType<typeof parseOptions>): string | undefined {
  if (hasOption(parsed, '-S', '--stdin')) return 'sudo -S reads the password from stdin (root without a terminal to ask on)';
  if (hasOption(parsed, '-A', '--askpass')) return 'sudo -A takes the password from a helper program (root without a terminal to ask on)';
  return undefined;
}

/** `su` and `runuser`: options anywhere (getopt permutes); `-c` carries the script, user and shell arguments follow. */
const SU_OPTIONS: OptionSpec = {
  flags: 'flmpPhV',
  values: 'cgGsw',
  long: { ...common, ...flags('fast', 'login', 'preserve-environment', 'pty'), ...values('command', 'session-command', 'group', 'supp-group', 'shell', 'whitelist-environment') },
};

const GIT_GLOBAL: OptionSpec = { flags: 'pPv', values: 'Cc', stopAtOperand: true, long: { ...values('git-dir', 'work-tree', 'namespace', 'config-env'), ...flags('paginate', 'no-pager', 'bare') } };
/** git settings whose value is run by a shell. */
const GIT_EXEC_KEY = /^(alias\..+|core\.(pager|editor|sshcommand|fsmonitor|askpass|hookspath)|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)|credential(\..+)?\.helper|pager\..+|gpg(\..+)?\.program|merge\..+\.driver|uploadpack\.packobjectshook|core\.gitproxy)$/;

/** find's actions that run a command, up to `;` or `+`. */
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'yash', 'fish', 'rbash', 'posh', 'lksh', 'oksh', 'pdksh', 'tcsh', 'csh']);

/** Bash-style shell options: `-c` takes no value (the script is the first operand); `-o`/`-O` take one. */
const SHELL_OPTIONS: OptionSpec = {
  flags: 'abefhkmnptuvxBCEHPTilrsDc',
  values: 'oO',
  long: { ...common, ...flags('debugger', 'dump-po-strings', 'dump-strings', 'login', 'noediting', 'noprofile', 'norc', 'posix', 'pretty-print', 'restricted', 'verbose', 'interactive', 'no-config', 'private', 'no-execute', 'command'), ...values('init-file', 'rcfile', 'init-command') },
};

const FISH_OPTIONS: OptionSpec = {
  flags: 'ilnPNv',
  values: 'cCdopf',
  stopAtOperand: true,
  long: { ...common, ...flags('interactive', 'login', 'no-execute', 'private', 'no-config', 'print-rusage-self', 'print-debug-categories'), ...values('command', 'init-command', 'debug', 'debug-output', 'profile', 'profile-startup', 'features') },
};

/** A script the parser must read as its own: its text, its `$0 $1…`, and what feeds its stdin. */
export interface NestedScript {
  text: string;
  positional?: string[];
  arg0?: string;
  /** Where it came from, for messages (`bash -c`, `eval`, the here-string of bash). */
  origin: string;
  /** Pass the carrier's stdin on to the script's commands. */
  stdin?: Stdin;
}

export interface Unwrapped {
  /** The command that finally runs (argv[0] as written); empty when it runs nothing here. */
  argv: string[];
  via: string[];
  findings: Finding[];
  scripts: NestedScript[];
  /** Interpreter code known to run (`perl -e …`, python's here-doc). */
  code: string[];
  /** Further commands it runs, as argv lists (`find -exec`). */
  commands: string[][];
  /** The folder the command runs in when a carrier changes it (`env -C /`, `sudo -D dir`). */
  cwd?: string;
}

/**
 * env's arguments with the first -S (`-S str`, `-Sstr`, `-viSstr`, `--split-string=str`, an
 * abbreviation of it) replaced by the words of its string, in its place; undefined without one.
 */
function envSplitInPlace(args: string[]): string[] | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === '--' || !word.startsWith('-') || word === '-') return undefined;
    const long = /^--([^=]*)(=(.*))?$/s.exec(word);
    if (long) {
      const name = long[1];
      const takesValue = ['unset', 'chdir', 'argv0'].some((option) => option.startsWith(name) && name.length >= 1) && !'split-string'.startsWith(name);
      if (name.length >= 1 && 'split-string'.startsWith(name)) {
        const value = long[3] ?? args[i + 1];
        if (value === undefined) return undefined;
        return [...args.slice(0, i), ...splitWords(value), ...args.slice(long[3] === undefined ? i + 2 : i + 1)];
      }
      if (takesValue && long[2] === undefined) i++;
      continue;
    }
    for (let j = 1; j < word.length; j++) {
      const letter = word[j];
      if (letter === 'S') {
        const attached = word.slice(j + 1);
        const value = attached !== '' ? attached : args[i + 1];
        if (value === undefined) return undefined;
        const before = j > 1 ? [word.slice(0, j)] : [];
        return [...args.slice(0, i), ...before, ...splitWords(value), ...args.slice(attached !== '' ? i + 1 : i + 2)];
      }
      if ('uCa'.includes(letter)) {
        if (j === word.length - 1) i++;
        break;
      }
    }
  }
  return undefined;
}

/** The long options bash and sh take; any other one makes the shell stop before it runs anything. */
const SHELL_LONG_OPTIONS = new Set(['--login', '--norc', '--noprofile', '--posix', '--rcfile', '--init-file', '--verbose', '--restricted', '--noediting', '--debugger', '--dump-strings', '--dump-po-strings', '--help', '--version', '--pretty-print']);

/** Splits a string into words as `env -S` does (shell quoting, `\_` a separator outside quotes and a space inside, `\c` the end; no expansions). */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" ) {
      const end = text.indexOf("'", i + 1);
      word += text.slice(i + 1, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < text.length) {
          j++;
          if (text[j] === '_') {
            word += ' ';
            j++;
            continue;
          }
        }
        word += text[j++];
      }
      i = j;
      inWord = true;
    } else if (c === '\\' && text[i + 1] === 'c') {
      break;
    } else if (c === '\\' && text[i + 1] === '_') {
      i++;
      if (inWord) out.push(word);
      word = '';
      inWord = false;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (' \t\n'.includes(c)) {
      if (inWord) out.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) out.push(word);
  return out;
}

export const baseName = (program: string): string => program.slice(program.lastIndexOf('/') + 1);

/** Where a shell or interpreter would read its program from. */
type Source = { kind: 'inline'; text: string } | { kind: 'stdin' } | { kind: 'file'; path: string } | { kind: 'none' };

/** A script's source as `bash`, `sh -c -x`, `bash -s`, `fish -C` would take it. */
function shellSource(name: string, args: string[], findings: Finding[]): { source: Source; positional: string[]; arg0?: string } {
  if (name === 'fish') {
    const parsed = parseOptions(args, FISH_OPTIONS);
    if (parsed.unknown.length > 0) findings.push({ level: 'risky', reason: `fish with options it does not know (${parsed.unknown.join(' ')})`, reach: true });
    const scripts = parsed.options.filter((o) => o.names.some((n) => ['-c', '--command', '-C', '--init-command'].includes(n))).map((o) => o.value ?? '');
    const rest = args.slice(parsed.rest);
    if (scripts.length > 0) return { source: { kind: 'inline', text: scripts.join('\n') }, positional: rest };
    return rest.length === 0 ? { source: { kind: 'stdin' }, positional: [] } : { source: { kind: 'file', path: rest[0] }, positional: rest.slice(1) };
  }
  // `+x`, `+o pipefail` are options too (turned off); bash reads them before the script.
  let k = 0;
  const spelled = [...args];
  while (k < spelled.length && /^[-+]/.test(spelled[k]) && spelled[k] !== '--' && spelled[k] !== '-') {
    const takesValue = /^[-+][oO]$/.test(spelled[k]);
    if (spelled[k].startsWith('+')) spelled[k] = `-${spelled[k].slice(1)}`;
    k += takesValue ? 2 : 1;
  }
  const parsed = parseOptions(spelled, { ...SHELL_OPTIONS, stopAtOperand: true });
  const bad = parsed.unknown.filter((word) => !/^\+/.test(word));
  if (bad.length > 0) findings.push({ level: 'risky', reason: `${name} with options it does not know (${bad.join(' ')})`, reach: true });
  const rest = args.slice(parsed.rest);
  const init = optionValue(parsed, '--init-command');
  if (init !== undefined) return { source: { kind: 'inline', text: init }, positional: rest };
  if (hasOption(parsed, '-c', '--command')) {
    const [script, arg0, ...positional] = rest;
    return { source: script === undefined ? { kind: 'none' } : { kind: 'inline', text: script }, positional, arg0 };
  }
  if (hasOption(parsed, '-s') || rest.length === 0 || rest[0] === '-') return { source: { kind: 'stdin' }, positional: rest[0] === '-' ? rest.slice(1) : rest };
  return { source: { kind: 'file', path: rest[0] }, positional: rest.slice(1), arg0: rest[0] };
}

/** Interpreters, and how each takes inline code. */
const INTERPRETER = /^(python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|php[\d.]*|lua[\d.]*|luajit|Rscript|deno|bun|awk|gawk|mawk|nawk|busybox-awk)$/;

export const isInterpreter = (name: string): boolean => INTERPRETER.test(name);

/** Inline code and the source of an interpreter's program. */
function interpreterSource(name: string, args: string[]): { source: Source; inline: string[] } {
  const inline: string[] = [];
  const family = name.replace(/[\d.]+$/, '');
  if (family === 'awk' || family === 'gawk' || family === 'mawk' || family === 'nawk') {
    const parsed = parseOptions(args, { values: 'fFvWe', long: values('file', 'field-separator', 'assign', 'source', 'include', 'load') });
    const sources = parsed.options.filter((o) => o.names.some((n) => n === '-e' || n === '--source')).map((o) => o.value ?? '');
    if (sources.length > 0 || hasOption(parsed, '-f', '--file')) return { source: { kind: 'none' }, inline: sources };
    return { source: { kind: 'none' }, inline: parsed.operands.slice(0, 1) };
  }
  // Code options per family; the option that ends option parsing with the program text.
  const codeOptions: Record<string, string> = { python: 'c', pypy: 'c', perl: 'eE', ruby: 'e', node: 'ep', nodejs: 'ep', php: 'rBRE', lua: 'e', luajit: 'e', Rscript: 'e', bun: 'e' };
  const valueOptions: Record<string, string> = { python: 'WXQ', pypy: 'WXQ', perl: 'IMmx', ruby: 'rICEFx', node: 'rC', nodejs: 'rC', php: 'dcfz', lua: 'l', luajit: 'lj', Rscript: '', bun: 'r' };
  const code = codeOptions[family] ?? '';
  const withValue = valueOptions[family] ?? '';
  let i = 0;
  let ended = false;
  for (; i < args.length && !ended; i++) {
    const word = args[i];
    if (word === '-') return { source: { kind: 'stdin' }, inline };
    if (word === '--') {
      i++;
      break;
    }
    if (word.startsWith('--')) {
      const [flag, attached] = word.split(/=(.*)/s, 2);
      if (/^--(eval|print)$/.test(flag) && (family === 'node' || family === 'nodejs' || family === 'bun')) inline.push(attached ?? args[++i] ?? '');
      else if (flag === '--command' && family === 'python') inline.push(attached ?? args[++i] ?? '');
      else if (/^--(require|import|loader|input-type|experimental-loader|conditions)$/.test(flag) && attached === undefined) i++;
      continue;
    }
    if (!word.startsWith('-') || word.length === 1) break;
    for (let j = 1; j < word.length; j++) {
      const letter = word[j];
      const attached = word.slice(j + 1);
      if (code.includes(letter)) {
        inline.push(attached !== '' ? attached : args[++i] ?? '');
        if (family === 'python' || family === 'pypy') ended = true;
        break;
      }
      if (letter === 'm' && (family === 'python' || family === 'pypy')) return { source: { kind: 'none' }, inline };
      if (withValue.includes(letter)) {
        if (attached === '' && !(family === 'perl' && letter !== 'I')) i++;
        break;
      }
      if (family === 'perl' && /[il0xdDC]/.test(letter)) break;
    }
  }
  if (inline.length > 0) return { source: { kind: 'none' }, inline };
  if (family === 'deno') {
    const sub = args.find((word) => !word.startsWith('-'));
    const target = args[args.indexOf(sub ?? '') + 1];
    if (sub === 'eval' && target !== undefined) return { source: { kind: 'none' }, inline: [target] };
    if (sub === 'run' && target !== undefined) return { source: { kind: 'file', path: target }, inline };
    return { source: { kind: 'none' }, inline };
  }
  const operand = args[i];
  if (operand === undefined) return { source: family === 'Rscript' ? { kind: 'none' } : { kind: 'stdin' }, inline };
  if (operand === '-' || operand === '/dev/stdin') return { source: { kind: 'stdin' }, inline };
  return { source: { kind: 'file', path: operand }, inline };
}

/** A process substitution field (`\0proc:N`) refers to entry N of `procsubs`. */
export const procsubIndex = (word: string): number | undefined => {
  const match = /^\0proc:(\d+)$/.exec(word);
  return match ? Number(match[1]) : undefined;
};

/** Resolves where a program's text comes from, given the command's stdin and process substitutions. */
function programText(source: Source, stdin: Stdin, procsubs: Array<{ output?: string; programs: string[] }>, what: string, written?: WrittenFiles): ProgramSource {
  if (source.kind === 'inline') return { texts: [source.text], programs: [], from: 'inline', ...(isUnknown(source.text) ? { unknown: `${what} runs a script known only at run time (${showWord(source.text)})` } : {}) };
  const fromStdin = source.kind === 'stdin' || (source.kind === 'file' && /^\/dev\/(stdin|fd\/0)$/.test(source.path));
  if (fromStdin) {
    if (stdin.kind === 'none' || stdin.kind === 'file') return { texts: [], programs: stdin.programs, from: 'stdin' };
    const where = { pipe: 'a pipe', heredoc: 'a here-document', herestring: 'a here-string', procsub: 'a process substitution' }[stdin.kind];
    if (stdin.text !== undefined && !isUnknown(stdin.text)) return { texts: [stdin.text], programs: stdin.programs, from: 'stdin' };
    return { texts: stdin.text ? [stdin.text] : [], programs: stdin.programs, from: 'stdin', unknown: `${what} runs commands read from ${where}, known only at run time` };
  }
  if (source.kind === 'file') {
    const index = procsubIndex(source.path);
    if (index !== undefined) {
      const sub = procsubs[index];
      if (sub?.output !== undefined && !isUnknown(sub.output)) return { texts: [sub.output], programs: sub.programs, from: 'procsub' };
      return { texts: [], programs: sub?.programs ?? [], from: 'procsub', unknown: `${what} runs the output of a process substitution, known only at run time` };
    }
    if (isUnknown(source.path)) return { texts: [], programs: [], from: 'file', unknown: `${what} runs a script file named only at run time` };
    const file = written?.(source.path);
    if (file) return fileProgram(file, what, source.path);
  }
  return { texts: [], programs: [], from: source.kind === 'file' ? 'file' : 'none' };
}

/** A file an earlier command of the same script wrote: its text when known, else the part that is known. */
export interface WrittenFile {
  text?: string;
  /** Text appended to a file whose earlier content is unknown (`>>`). */
  part?: string;
  /** The programs whose output it holds (`curl -o x.sh`). */
  programs: string[];
}

/** Looks a path up among the files the script wrote so far (undefined when it wrote none there). */
export type WrittenFiles = (path: string) => WrittenFile | undefined;

/** The program of a file the script itself wrote (`cat > x.sh <<EOF … EOF; bash x.sh`). */
export function fileProgram(file: WrittenFile, what: string, path: string): ProgramSource {
  if (file.text !== undefined && !isUnknown(file.text)) return { texts: [file.text], programs: file.programs, from: 'file' };
  const writer = file.programs.length > 0 ? file.programs.join(', ') : 'this command';
  const texts = [file.text, file.part].filter((text): text is string => text !== undefined);
  return { texts, programs: file.programs, from: 'file', unknown: `${what} runs ${showWord(path)}, which ${writer} wrote just before (its text known only at run time)` };
}

export interface UnwrapInput {
  argv: string[];
  stdin: Stdin;
  procsubs: Array<{ output?: string; programs: string[] }>;
  /** Items xargs would append, from what is piped into it (UNKNOWN when not known). */
  stdinItems: () => string[];
  /** Files earlier commands of the script wrote. */
  written?: WrittenFiles;
}

/** What the command really runs once its carriers are removed, and the scripts it hands to a shell. */
export function unwrap(input: UnwrapInput): Unwrapped & { source?: ProgramSource } {
  const out: Unwrapped & { source?: ProgramSource } = { argv: input.argv, via: [], findings: [], scripts: [], code: [], commands: [] };
  let argv = input.argv;
  for (let guard = 0; guard < 12 && argv.length > 0; guard++) {
    while (argv.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(argv[0]) && guard === 0) argv = argv.slice(1);
    if (argv.length === 0) break;
    const name = baseName(argv[0]);
    const args = argv.slice(1);
    if (name === 'su' || name === 'runuser') {
      out.via.push(name);
      const parsed = parseOptions(args, name === 'runuser' ? { ...SU_OPTIONS, values: `${SU_OPTIONS.values}u`, long: { ...SU_OPTIONS.long, ...values('user') } } : SU_OPTIONS);
      if (parsed.unknown.length > 0) out.findings.push({ level: 'risky', reason: `${name} with options it does not know (${parsed.unknown.join(' ')})`, reach: true });
      // util-linux refuses these pairs and runs nothing: -m/-p with -w, and runuser's -u with -c.
      const preserves = hasOption(parsed, '-m', '-p', '--preserve-environment') && hasOption(parsed, '-w', '--whitelist-environment');
      const userAndCommand = name === 'runuser' && hasOption(parsed, '-u', '--user') && hasOption(parsed, '-c', '--command', '--session-command');
      if (preserves || userAndCommand) {
        argv = [];
        break;
      }
      // su and runuser keep one command: the last `-c`/`--command`/`--session-command` given.
      const commandOption = parsed.options.filter((o) => o.names.some((n) => ['-c', '--command', '--session-command'].includes(n))).pop();
      if (commandOption) out.scripts.push({ text: commandOption.value ?? '', origin: `${name} -c`, stdin: input.stdin });
      // `runuser -u user -- cmd args`: the command follows.
      if (name === 'runuser' && hasOption(parsed, '-u', '--user') && !hasOption(parsed, '-c', '--command', '--session-command')) {
        argv = parsed.operands;
        continue;
      }
      const operands = parsed.operands.filter((word) => word !== '-');
      // Words after the user go to the user's shell: `su root -c 'cmd'` after `--`, or a script file.
      const shellArgs = operands.slice(1);
      // A long option no shell has (`su -- root --command x`): the user's shell stops with an error.
      if (shellArgs.length > 0 && /^--./.test(shellArgs[0]) && !SHELL_LONG_OPTIONS.has(shellArgs[0].replace(/=.*/s, ''))) {
        argv = [];
        break;
      }
      if (shellArgs.length > 0) {
        const shell = shellSource('sh', shellArgs, out.findings);
        const text = programText(shell.source, input.stdin, input.procsubs, name, input.written);
        if (text.unknown) out.findings.push({ level: 'risky', reason: text.unknown, reach: true });
        for (const script of text.texts) out.scripts.push({ text: script, positional: shell.positional, origin: `${name} (the user's shell)` });
      } else if (parsed.options.every((o) => !o.names.some((n) => ['-c', '--command', '--session-command'].includes(n)))) {
        const text = programText({ kind: 'stdin' }, input.stdin, input.procsubs, name, input.written);
        if (text.unknown) out.findings.push({ level: 'risky', reason: text.unknown });
        for (const script of text.texts) out.scripts.push({ text: script, origin: `${name} (the user's shell, from stdin)` });
      }
      argv = [];
      break;
    }
    if (name === 'xargs') {
      out.via.push(name);
      const parsed = parseOptions(args, {
        flags: '0oprtx',
        values: 'adEILnPs',
        optional: 'eil',
        stopAtOperand: true,
        long: { ...common, ...flags('null', 'interactive', 'no-run-if-empty', 'verbose', 'exit', 'show-limits', 'open-tty'), ...values('arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'), ...optionals('eof', 'replace', 'max-lines') },
      });
      if (parsed.unknown.length > 0) out.findings.push({ level: 'risky', reason: `xargs with options it does not know (${parsed.unknown.join(' ')})`, reach: true });
      const items = hasOption(parsed, '-a', '--arg-file') ? [UNKNOWN] : input.stdinItems();
      const replace = optionValue(parsed, '-I', '-i', '--replace');
      const command = args.slice(parsed.rest);
      const inner = command.length > 0 ? command : ['echo'];
      const marker = replace ?? (hasOption(parsed, '-I', '-i', '--replace') ? '{}' : undefined);
      argv = marker !== undefined ? inner.map((word) => (word.includes(marker) ? word.split(marker).join(items[0] ?? UNKNOWN) : word)) : [...inner, ...items];
      continue;
    }
    if (name === 'find') {
      // The command of each -exec, with `{}` standing for the roots.
      const roots: string[] = [];
      let k = 0;
      while (k < args.length && /^-[HLP]$|^-D$|^-O\d$/.test(args[k])) k += args[k] === '-D' ? 2 : 1;
      while (k < args.length && !/^[-(!,]/.test(args[k])) roots.push(args[k++]);
      for (let j = k; j < args.length; j++) {
        if (!FIND_EXEC.has(args[j])) continue;
        let end = j + 1;
        while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
        const inner = args.slice(j + 1, end);
        for (const root of roots.length > 0 ? roots.slice(0, 4) : ['.']) out.commands.push(inner.map((word) => word.split('{}').join(root)));
        j = end;
      }
      break;
    }
    if (name === 'git') {
      // `git -c alias.x='!cmd' x`, `git -c core.pager=cmd log`: settings whose value git runs with a shell.
      const parsed = parseOptions(args, GIT_GLOBAL);
      const settings = parsed.options.filter((o) => o.names.includes('-c')).map((o) => o.value ?? '');
      const sub = args.slice(parsed.rest);
      if (sub[0] === 'config') {
        const operands = sub.slice(1).filter((w) => !w.startsWith('-'));
        if (operands.length >= 2) settings.push(`${operands[0]}=${operands[1]}`);
      }
      for (const setting of settings) {
        const eq = setting.indexOf('=');
        const key = setting.slice(0, eq).toLowerCase();
        const value = setting.slice(eq + 1);
        if (eq < 0 || !GIT_EXEC_KEY.test(key) || (/^(alias|credential)\./.test(key) && !value.startsWith('!'))) continue;
        out.scripts.push({ text: value.replace(/^!/, ''), origin: `git ${key}` });
        if (sub[0] === 'config') out.findings.push({ level: 'risky', reason: `sets git's ${key}, which runs a command` });
      }
      break;
    }
    if (name === 'sg') {
      // `sg [-] group [-c] command`: the command is a shell script.
      out.via.push(name);
      const rest = args.filter((w, i) => !(i === 0 && w === '-')).slice(1);
      const text = (rest[0] === '-c' ? rest.slice(1) : rest).join(' ');
      if (text) out.scripts.push({ text, origin: 'sg', stdin: input.stdin });
      argv = [];
      break;
    }
    if (name === 'trap') {
      // `trap 'cmd' EXIT`: the command runs later, when the signal comes or the shell exits.
      const rest = args[0] === '--' ? args.slice(1) : args;
      if (rest.length >= 2 && !/^-[lp]$/.test(rest[0]) && rest[0] !== '-') out.scripts.push({ text: rest[0], origin: 'trap' });
      argv = [];
      break;
    }
    if (name === 'at' || name === 'batch') {
      // at and batch run a script later, read from stdin or from `-f file`.
      out.via.push(name);
      const parsed = parseOptions(args, { flags: 'mMlrdvcbKVS', values: 'fqtu', long: common });
      if (parsed.unknown.length > 0) out.findings.push({ level: 'risky', reason: `${name} with options it does not know (${parsed.unknown.join(' ')})`, reach: true });
      if (!hasOption(parsed, '-l', '-r', '-d', '-c', '--help', '--version')) {
        const file = optionValue(parsed, '-f');
        const text = programText(file === undefined ? { kind: 'stdin' } : { kind: 'file', path: file }, input.stdin, input.procsubs, name, input.written);
        out.source = text;
        if (text.unknown) out.findings.push({ level: 'risky', reason: text.unknown });
        for (const script of text.texts) out.scripts.push({ text: script, origin: `${name} job` });
      }
      argv = [];
      break;
    }
    if (name === 'eval') {
      out.via.push(name);
      const text = args.join(' ');
      if (isUnknown(text)) out.findings.push({ level: 'risky', reason: `eval of text known only at run time (${showWord(text)})`, reach: true });
      out.scripts.push({ text, origin: 'eval', stdin: input.stdin });
      break;
    }
    if (name === 'source' || name === '.') {
      const file = args[0] ?? '';
      const text = programText({ kind: 'file', path: file }, input.stdin, input.procsubs, name, input.written);
      out.source = text;
      if (text.unknown) out.findings.push({ level: 'risky', reason: text.unknown });
      for (const script of text.texts) out.scripts.push({ text: script, positional: args.slice(1), origin: name });
      break;
    }
    if (SHELLS.has(name)) {
      const shell = shellSource(name, args, out.findings);
      const text = programText(shell.source, input.stdin, input.procsubs, name, input.written);
      out.source = text;
      if (text.unknown) out.findings.push({ level: 'risky', reason: text.unknown, reach: shell.source.kind === 'inline' });
      for (const script of text.texts) out.scripts.push({ text: script, positional: shell.positional, arg0: shell.arg0 ?? name, origin: name, ...(shell.source.kind === 'inline' ? { stdin: input.stdin } : {}) });
      break;
    }
    if (isInterpreter(name)) {
      const interp = interpreterSource(name, args);
      const text = programText(interp.source, input.stdin, input.procsubs, name, input.written);
      out.source = { ...text, texts: [...interp.inline, ...text.texts], from: interp.inline.length > 0 ? 'inline' : text.from };
      if (text.unknown) out.findings.push({ level: 'risky', reason: text.unknown });
      out.code.push(...interp.inline, ...text.texts);
      break;
    }
    const spec = CARRIERS[name];
    if (!spec) break;
    out.via.push(name);
    if (name === 'env') {
      // env reads the words of -S as its own arguments, in their place: `env -vS/bin/sh -c x` is `env -v /bin/sh -c x`.
      const split = envSplitInPlace(args);
      if (split) {
        argv = ['env', ...split];
        continue;
      }
    }
    const parsed = parseOptions(args, spec.options);
    if (parsed.unknown.length > 0) out.findings.push({ level: 'risky', reason: `${name} with options it does not know (${parsed.unknown.join(' ')})`, reach: true });
    if (name === 'sudo') {
      const privileged = sudoPrivilege(parsed);
      if (privileged) out.findings.push({ level: 'risky', reason: privileged });
      // `sudo -s`/`sudo -i` with no command: a root shell, running what its stdin holds (with a command, the command is judged).
      if (hasOption(parsed, '-s', '--shell', '-i', '--login') && args.slice(parsed.rest).length === 0) {
        out.findings.push({ level: 'risky', reason: `sudo ${hasOption(parsed, '-i', '--login') ? '-i runs a root login shell' : '-s runs a root shell'}` });
        if (input.stdin.kind !== 'none' && input.stdin.kind !== 'file') {
          const text = programText({ kind: 'stdin' }, input.stdin, input.procsubs, 'sudo -s', input.written);
          if (text.unknown) out.findings.push({ level: 'risky', reason: text.unknown });
          for (const script of text.texts) out.scripts.push({ text: script, origin: 'sudo (a root shell, from stdin)' });
        }
        argv = [];
        break;
      }
    }
    if (spec.noRun && (spec.noRun.includes('*') ? !spec.script?.some((s) => hasOption(parsed, s)) : hasOption(parsed, ...spec.noRun))) {
      argv = [];
      break;
    }
    // A script option given twice keeps the last one, as getopt-style programs do.
    const scriptOption = parsed.options.filter((found) => spec.script?.some((option) => found.names.includes(option))).pop();
    if (scriptOption) out.scripts.push({ text: scriptOption.value ?? '', origin: `${name} ${scriptOption.names[0]}`, stdin: input.stdin });
    let rest = args.slice(parsed.rest);
    // env takes any word with `=` before its program as a variable (`A-B=1` too), as putenv does.
    if (spec.assignments) while (rest.length > 0 && /^[^=]+=/.test(rest[0])) rest = rest.slice(1);
    // timeout with no valid duration and nice with a non-number adjustment stop with an error before running anything.
    const badDuration = name === 'timeout' && rest[0] !== undefined && !isUnknown(rest[0]) && !/^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?[smhd]?$/i.test(rest[0]);
    const adjustment = name === 'nice' ? optionValue(parsed, '-n', '--adjustment') : undefined;
    if (badDuration || (adjustment !== undefined && !isUnknown(adjustment) && !/^[-+]?\d+$/.test(adjustment))) {
      argv = [];
      break;
    }
    rest = rest.slice(spec.positionals ?? 0);
    // `flock file -c 'cmd'`: the script option may follow the positional.
    const late = rest[0] ?? '';
    const lateFlag = late.startsWith('--') && late.includes('=') ? late.slice(0, late.indexOf('=')) : late;
    if (spec.script?.includes(lateFlag)) {
      // Given more than once, the last one runs.
      let text = '';
      for (let j = 0; j < rest.length; ) {
        const word = rest[j];
        const flag = word.startsWith('--') && word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
        if (!spec.script.includes(flag)) break;
        text = flag === word ? rest[j + 1] ?? '' : word.slice(flag.length + 1);
        j += flag === word ? 2 : 1;
      }
      out.scripts.push({ text, origin: `${name} ${lateFlag}`, stdin: input.stdin });
      argv = [];
      break;
    }
    const chdir = name === 'env' || name === 'sudo' ? optionValue(parsed, '-C', '--chdir', '-D') : undefined;
    if (chdir !== undefined && name !== 'sudo' || (name === 'sudo' && optionValue(parsed, '-D', '--chdir') !== undefined)) out.cwd = chdir;
    // `env -0 cmd` refuses to run cmd (--null is only for printing the environment).
    if (name === 'env' && hasOption(parsed, '-0', '--null') && rest.length > 0) {
      argv = [];
      break;
    }
    if (name === 'sudo' && hasOption(parsed, '-e', '--edit')) {
      argv = ['sudoedit', ...rest];
      break;
    }
    // `ssh host` with no command: the far shell runs what stdin holds (`ssh host <<EOF … EOF`, `echo cmd | ssh host`).
    if (name === 'ssh' && rest.length === 0 && !hasOption(parsed, '-N', '-n', '-s', '-O', '-V') && input.stdin.kind !== 'none' && input.stdin.kind !== 'file') {
      const text = programText({ kind: 'stdin' }, input.stdin, input.procsubs, 'ssh', input.written);
      if (text.unknown) out.findings.push({ level: 'risky', reason: text.unknown });
      for (const script of text.texts) out.scripts.push({ text: script, origin: 'ssh (the far shell, from stdin)' });
      argv = [];
      break;
    }
    if (spec.joins && rest.length > 0 && !(name === 'watch' && hasOption(parsed, '-x', '--exec'))) {
      out.scripts.push({ text: rest.join(' '), origin: name });
      argv = [];
      break;
    }
    if (spec.script?.some((s) => hasOption(parsed, s))) {
      argv = [];
      break;
    }
    argv = rest;
  }
  out.argv = argv;
  return out;
}
