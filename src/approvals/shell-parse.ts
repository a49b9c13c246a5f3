/*
 * A small reader of bash command lines, enough to judge what a command does: quotes and
 * escapes removed, `;` `&&` `||` `|` `&` and newlines split it into simple commands,
 * redirections kept apart, `$(…)`, backticks and `<(…)` read as commands of their own, and
 * wrappers (`sudo`, `env`, `nohup`, `VAR=x`, `bash -c '…'`) looked through. It is not a
 * full shell parser; it errs on the side of seeing more commands, never fewer.
 */

export interface Redirect {
  /** `>`, `>>`, `<`, `&>`, `>|`, … (the fd number dropped). */
  op: string;
  target: string;
}

export interface SimpleCommand {
  /** The words after wrappers are removed; `argv[0]` is the program's base name. */
  argv: string[];
  redirects: Redirect[];
  /** Position in its pipeline (0 for the first command, or one outside a pipeline). */
  pipeIndex: number;
  /** The simple commands of the same pipeline before this one. */
  pipedFrom: SimpleCommand[];
  /** Programs of command substitutions in this command's words (`bash -c "$(curl …)"` → curl). */
  substituted: string[];
}

type Token = { kind: 'word'; text: string; subs: string[] } | { kind: 'op'; text: string } | { kind: 'redir'; text: string };

const OPERATORS = ['&&', '||', '|&', ';;', '&>>', '&>', '>>', '>|', '<<<', '<<', '<>', '|', '&', ';', '(', ')', '>', '<', '\n'];

/** Reads `$(…)`/`<(…)` starting after the opening parenthesis; returns the inner text and the index after `)`. */
function readParenthesized(text: string, start: number): [string, number] {
  let depth = 1;
  let i = start;
  let quote: string | null = null;
  while (i < text.length) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '\\') i++;
    else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return [text.slice(start, i), i + 1];
    i++;
  }
  return [text.slice(start), text.length];
}

function tokenize(text: string, nested: string[]): Token[] {
  const tokens: Token[] = [];
  let word = '';
  let inWord = false;
  let subs: string[] = [];
  const flush = () => {
    if (inWord) tokens.push({ kind: 'word', text: word, subs });
    word = '';
    inWord = false;
    subs = [];
  };
  const substitution = (inner: string) => {
    nested.push(inner);
    subs.push(inner);
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') {
      if (text[i + 1] === '\n') i += 2;
      else {
        word += text[i + 1] ?? '';
        inWord = true;
        i += 2;
      }
      continue;
    }
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word += text.slice(i + 1, end < 0 ? text.length : end);
      inWord = true;
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === '"') {
      inWord = true;
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) {
          word += text[i + 1];
          i += 2;
        } else if (text.startsWith('$(', i)) {
          const [inner, next] = readParenthesized(text, i + 2);
          substitution(inner);
          word += text.slice(i, next);
          i = next;
        } else if (text[i] === '`') {
          const end = text.indexOf('`', i + 1);
          substitution(text.slice(i + 1, end < 0 ? text.length : end));
          word += text.slice(i, end < 0 ? text.length : end + 1);
          i = end < 0 ? text.length : end + 1;
        } else word += text[i++];
      }
      i++;
      continue;
    }
    if (text.startsWith('$(', i) || ((c === '<' || c === '>') && text[i + 1] === '(')) {
      const [inner, next] = readParenthesized(text, i + 2);
      substitution(inner);
      word += text.slice(i, next);
      inWord = true;
      i = next;
      continue;
    }
    if (c === '`') {
      const end = text.indexOf('`', i + 1);
      substitution(text.slice(i + 1, end < 0 ? text.length : end));
      word += text.slice(i, end < 0 ? text.length : end + 1);
      inWord = true;
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === '#' && !inWord) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      flush();
      i++;
      continue;
    }
    // A redirection may carry an fd number: `2>`, `1>>`; a word of digits right before it is that number.
    const op = OPERATORS.find((candidate) => text.startsWith(candidate, i));
    if (op) {
      const redir = /^(?:[<>]|>>|&>|&>>|>\||<>|<<|<<<)$/.test(op);
      if (redir && inWord && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
        subs = [];
      } else flush();
      if (redir && text[i + op.length] === '&') {
        // `2>&1`, `>&2`: fd duplication, not a file.
        i += op.length + 1;
        while (i < text.length && /[\d-]/.test(text[i])) i++;
        continue;
      }
      tokens.push({ kind: redir ? 'redir' : 'op', text: op });
      i += op.length;
      continue;
    }
    word += c;
    inWord = true;
    i++;
  }
  flush();
  return tokens;
}

/** Programs that run the rest of their arguments as a command, and how many option arguments they take. */
const WRAPPERS: Record<string, { withValue: string[] }> = {
  sudo: { withValue: ['-u', '-g', '-C', '-p', '-h', '-r', '-t', '-U', '-D', '--user', '--group'] },
  doas: { withValue: ['-u', '-C'] },
  env: { withValue: ['-u', '-C', '-S', '--unset', '--chdir'] },
  nohup: { withValue: [] },
  nice: { withValue: ['-n', '--adjustment'] },
  ionice: { withValue: ['-c', '-n', '-p'] },
  time: { withValue: ['-f', '-o'] },
  command: { withValue: [] },
  builtin: { withValue: [] },
  exec: { withValue: ['-a'] },
  stdbuf: { withValue: ['-i', '-o', '-e'] },
  setsid: { withValue: [] },
  chrt: { withValue: [] },
  taskset: { withValue: [] },
  unbuffer: { withValue: [] },
  xargs: { withValue: ['-I', '-n', '-P', '-d', '-E', '-L', '-s', '-a'] },
  watch: { withValue: ['-n', '-d'] },
  timeout: { withValue: ['-s', '-k', '--signal', '--kill-after'] },
};

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'fish', 'busybox']);

export function baseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1);
}

/** Removes assignments and wrappers from the front; returns the real argv and any inline scripts (`bash -c`). */
function unwrap(words: string[], scripts: string[]): string[] {
  let argv = words;
  for (let guard = 0; guard < 10; guard++) {
    while (argv.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0])) argv = argv.slice(1);
    if (argv.length === 0) return argv;
    const name = baseName(argv[0]);
    if (name === '{' || name === '!') {
      argv = argv.slice(1);
      continue;
    }
    if (name === 'busybox' && argv.length > 1) {
      argv = argv.slice(1);
      continue;
    }
    if (SHELLS.has(name) || name === 'su') {
      const c = argv.findIndex((word, index) => index > 0 && /^-[a-z]*c[a-z]*$/.test(word));
      if (c > 0 && argv[c + 1] !== undefined) scripts.push(argv[c + 1]);
      return argv;
    }
    if (name === 'eval') {
      scripts.push(argv.slice(1).join(' '));
      return argv;
    }
    const wrapper = WRAPPERS[name];
    if (!wrapper) return argv;
    let i = 1;
    // `timeout 10 cmd`, `nice -5 cmd`: a leading duration or number belongs to the wrapper.
    while (i < argv.length) {
      const word = argv[i];
      if (word === '--') {
        i++;
        break;
      }
      if (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i++;
      else if (wrapper.withValue.includes(word)) i += 2;
      else if (word.startsWith('-') && word.length > 1) i++;
      else if ((name === 'timeout' || name === 'chrt' || name === 'taskset') && /^[\d.]+[smhd]?$|^0x[\da-f]+$/i.test(word)) i++;
      else break;
    }
    argv = argv.slice(i);
  }
  return argv;
}

/**
 * Every simple command in `text`, including those inside substitutions and `bash -c`
 * strings, with wrappers removed. Depth-limited so a hostile string cannot recurse forever.
 */
export function parseCommands(text: string, depth = 0): SimpleCommand[] {
  if (depth > 4) return [];
  const nested: string[] = [];
  const tokens = tokenize(text, nested);
  const commands: SimpleCommand[] = [];
  const scripts: string[] = [];
  let pipeline: SimpleCommand[] = [];
  let words: Array<{ text: string; subs: string[] }> = [];
  let redirects: Redirect[] = [];
  let pendingRedirect: string | null = null;

  const end = (piped: boolean) => {
    if (words.length > 0 || redirects.length > 0) {
      const argv = unwrap(words.map((w) => w.text), scripts);
      const command: SimpleCommand = {
        argv: argv.length > 0 ? [baseName(argv[0]), ...argv.slice(1)] : [],
        redirects,
        pipeIndex: pipeline.length,
        pipedFrom: [...pipeline],
        substituted: words.flatMap((w) => w.subs).flatMap((sub) => parseCommands(sub, depth + 1).map((c) => c.argv[0] ?? '')),
      };
      commands.push(command);
      pipeline.push(command);
    }
    if (!piped) pipeline = [];
    words = [];
    redirects = [];
  };

  for (const token of tokens) {
    if (token.kind === 'redir') {
      pendingRedirect = token.text;
    } else if (token.kind === 'word') {
      if (pendingRedirect) {
        redirects.push({ op: pendingRedirect, target: token.text });
        pendingRedirect = null;
      } else words.push(token);
    } else {
      pendingRedirect = null;
      end(token.text === '|' || token.text === '|&');
    }
  }
  end(false);
  for (const inner of [...nested, ...scripts]) commands.push(...parseCommands(inner, depth + 1));
  return commands;
}
