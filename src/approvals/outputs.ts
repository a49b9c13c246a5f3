/*
 * What a few plain programs print, worked out from their arguments and input, so that a
 * script assembled at run time (`echo cm0gLXJmIC8= | base64 -d | sh`, `$(echo rm)`) can be
 * read before it runs. Anything else prints something unknown (undefined).
 */
import { posix } from 'node:path';
import { UNKNOWN, isUnknown } from './command.js';

/** `echo -e` and `printf` escapes. */
function escapes(text: string): string {
  const simple: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
  return text.replace(/\\(x[0-9a-fA-F]{1,2}|0?[0-7]{1,3}|.)/gs, (_all, esc: string) => {
    if (esc in simple) return simple[esc];
    if (esc.startsWith('x')) return String.fromCharCode(Number.parseInt(esc.slice(1), 16));
    if (/^[0-7]/.test(esc)) return String.fromCharCode(Number.parseInt(esc, 8) & 0xff);
    return `\\${esc}`;
  });
}

function echo(args: string[]): string {
  let interpret = false;
  let newline = true;
  let i = 0;
  for (; i < args.length && /^-[neE]+$/.test(args[i]); i++) {
    if (args[i].includes('n')) newline = false;
    if (args[i].includes('e')) interpret = true;
    if (args[i].includes('E')) interpret = false;
  }
  const text = args.slice(i).join(' ');
  return (interpret ? escapes(text) : text) + (newline ? '\n' : '');
}

/** `printf FORMAT ARGS…` for %s, %b, %d, %c and %%; the format is reused while arguments remain. */
function printf(args: string[]): string | undefined {
  const [format, ...rest] = args[0] === '--' ? args.slice(1) : args;
  if (format === undefined) return undefined;
  let out = '';
  let k = 0;
  do {
    let used = false;
    const piece = format.replace(/%(-?\d*)([sbdicq%])/g, (_all, _width: string, conv: string) => {
      if (conv === '%') return '%';
      used = true;
      const arg = rest[k++] ?? '';
      if (conv === 'b') return escapes(arg);
      if (conv === 'c') return arg.charAt(0);
      if (conv === 'd' || conv === 'i') return String(Number.parseInt(arg, 10) || 0);
      return arg;
    });
    out += escapes(piece);
    if (!used) break;
  } while (k < rest.length);
  return out;
}

function decodeBase64(text: string): string | undefined {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/=_-]*$/.test(clean)) return undefined;
  return Buffer.from(clean, 'base64').toString('utf8');
}

/** What `argv` prints given `stdin` (undefined when unknown); UNKNOWN inside marks unknown pieces. */
export function commandOutput(argv: string[], stdin: string | undefined): string | undefined {
  const [name, ...args] = argv;
  switch (name) {
    case 'echo':
      return echo(args);
    case 'printf':
      return args.some(isUnknown) && isUnknown(args[0] ?? '') ? UNKNOWN : printf(args);
    case 'cat':
      return args.filter((a) => a !== '-').length === 0 ? stdin : undefined;
    case 'true':
    case ':':
      return '';
    case 'dirname': {
      // `rm -rf $(dirname ~/x)` is `rm -rf ~`.
      const paths = args.filter((a) => !a.startsWith('-'));
      if (paths.length === 0) return undefined;
      if (paths.some(isUnknown)) return UNKNOWN;
      return paths.map((p) => `${posix.dirname(p.replace(/(.)\/+$/, '$1'))}\n`).join('');
    }
    case 'basename': {
      const [path, suffix] = args.filter((a) => !a.startsWith('-'));
      if (path === undefined || args.some((a) => a.startsWith('-'))) return undefined;
      if (isUnknown(path) || (suffix !== undefined && isUnknown(suffix))) return UNKNOWN;
      const base = posix.basename(path);
      return `${suffix !== undefined && base !== suffix && base.endsWith(suffix) ? base.slice(0, -suffix.length) : base}\n`;
    }
    case 'find': {
      // Paths under its start folders, the folders themselves first.
      if (args.some((a) => /^-(exec|execdir|ok|okdir|printf|fprint\w*|fls|ls)$/.test(a)) || args.some(isUnknown)) return undefined;
      const roots: string[] = [];
      for (const arg of args) {
        if (/^[-(!,]/.test(arg)) break;
        roots.push(arg);
      }
      return (roots.length > 0 ? roots : ['.']).map((root) => `${root}\n${root.replace(/\/$/, '')}/\u0002found\n`).join('');
    }
    case 'mktemp':
      // A fresh, randomly named file or folder: whatever is done to it harms nothing else.
      return args.some(isUnknown) ? UNKNOWN : '/tmp/tmp.\u0002random\n';
    case 'base64':
    case 'base32':
      if (!args.some((a) => /^-(d|D|\w*d\w*)$|^--decode$/.test(a)) || stdin === undefined || name === 'base32') return undefined;
      return isUnknown(stdin) ? UNKNOWN : decodeBase64(stdin);
    case 'xxd':
      if (!args.includes('-r') || !args.some((a) => /^-(p|ps|plain)$/.test(a)) || stdin === undefined) return undefined;
      return isUnknown(stdin) ? UNKNOWN : Buffer.from(stdin.replace(/[^0-9a-fA-F]/g, ''), 'hex').toString('utf8');
    case 'rev':
      if (stdin === undefined || args.length > 0) return undefined;
      return stdin.split('\n').map((line) => [...line].reverse().join('')).join('\n');
    case 'tr':
    case 'sed':
    case 'awk':
    case 'head':
    case 'tail':
      return stdin === undefined ? undefined : isUnknown(stdin) ? UNKNOWN : undefined;
    default:
      return undefined;
  }
}
