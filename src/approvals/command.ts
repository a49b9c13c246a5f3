/*
 * What the assessment knows about one simple command after bash's expansions, as far as
 * they can be worked out before it runs. Text that only exists at run time (an unset
 * variable, a command substitution whose output is unknown) is marked with UNKNOWN, so a
 * rule can never mistake it for a harmless literal.
 */

/** Marks text known only at run time; a NUL cannot occur in a real argument. */
export const UNKNOWN = '\0';

/** True when some of the word is known only at run time. */
export const isUnknown = (word: string): boolean => word.includes(UNKNOWN);

/** A word as a person reads it: unknown text shown as `…`. */
export const showWord = (word: string): string => word.replace(/\0(proc:\d+)?/g, '…');

export interface Redirect {
  /** `>`, `>>`, `<`, `&>`, `>|`, `<<`, `<<<`, … (the fd number is in `fd`). */
  op: string;
  fd: string;
  /** The expanded target; for `<<` the delimiter, for `<<<` the string. */
  target: string;
  /** A here-document's body as the command reads it (expansions applied where known). */
  body?: string;
}

/** A fail-closed finding: something the assessment could not resolve, or a trick. */
export interface Finding {
  level: 'risky' | 'blocked';
  reason: string;
  /** Blocked instead when the command's words reach the floor's targets (`/`, the home folder, a disk). */
  reach?: boolean;
}

/** Where a command's standard input comes from, and what it is when that is known. */
export interface Stdin {
  kind: 'pipe' | 'heredoc' | 'herestring' | 'file' | 'procsub' | 'none';
  /** The text, when known. */
  text?: string;
  /** Programs whose output it is (a downloader, a decoder). */
  programs: string[];
}

/** Where a shell's or interpreter's program comes from, and its text when known. */
export interface ProgramSource {
  /** Known program text (inline, from stdin, from a process substitution). */
  texts: string[];
  /** Why its program is not known, when it is not. */
  unknown?: string;
  /** Programs whose output it runs (a downloader, a decoder). */
  programs: string[];
  from: 'inline' | 'stdin' | 'file' | 'procsub' | 'none';
}

export interface SimpleCommand {
  /** The words after carriers are removed; `argv[0]` is the program's base name. */
  argv: string[];
  /** The program as written (`/usr/bin/rm`). */
  path: string;
  redirects: Redirect[];
  /** Position in its pipeline (0 for the first command, or one outside a pipeline). */
  pipeIndex: number;
  /** The simple commands of the same pipeline before this one. */
  pipedFrom: SimpleCommand[];
  /** Programs of command and process substitutions in this command's words (`bash -c "$(curl …)"` → curl). */
  substituted: string[];
  stdin: Stdin;
  /** The working folder when the script changed it to a known one (`cd ~ && …`). */
  cwd?: string;
  findings: Finding[];
  /** Carriers it ran through (`sudo`, `env`, `xargs`), outermost first. */
  via: string[];
  /** For a shell, `source` or an interpreter: where its program comes from. */
  source?: ProgramSource;
  /** Interpreter code known to run (`perl -e …`, a here-document fed to python). */
  code: string[];
}
