import { homedir } from 'node:os';
import { join } from 'node:path';
import { analyzeCommand } from './shell-parse.js';
import { FLOOR_RULES, forkBomb } from './rules.js';
import { RISKY_RULES, hiddenCharacters, runsDownloadedFile } from './risky-rules.js';
import { fileWriteReason } from './sensitive-paths.js';
import { isCatastrophicTarget, isDiskDevice, type PathContext } from './paths.js';
import { showWord, type SimpleCommand } from './command.js';
import { forkLoop, readCode } from './interpreter-code.js';
import { metadataIn } from './metadata.js';
import { runsFileMadeExecutable } from './listed-rules.js';
import { errorMessage } from '../shared/errors.js';

/** What a command is, for the approvals policy. */
export type Assessment =
  | { level: 'blocked'; reason: string }
  | { level: 'risky'; reason: string }
  | { level: 'safe' };

/** `~`, HERMES_HOME and the gateway's pid as the checks should see them; defaults to this process's (HERMES_HOME: `~/.hermes`; callers pass the settings' paths.home). */
export function pathContext(options: Partial<PathContext> = {}): PathContext {
  const home = options.home ?? homedir();
  return {
    home,
    hermesHome: options.hermesHome ?? join(home, '.hermes'),
    gatewayPid: options.gatewayPid ?? process.pid,
  };
}

/** A word of the command that reaches the floor's targets: `/`, a system or home folder, a disk. */
function reachedTarget(command: SimpleCommand, ctx: PathContext): string | undefined {
  const words = [...command.argv.slice(1), ...command.redirects.map((r) => r.target)];
  return words.find((word) => isCatastrophicTarget(word, ctx, command.cwd) || isDiskDevice(word));
}

/**
 * Judges a shell command: `blocked` when it is on the floor (recursive delete of the
 * system or a home folder, mkfs, dd to a disk, fork bomb, shutdown…), `risky` when it needs
 * the user's approval (git reset --hard, curl | sh, writing ~/.ssh or HERMES_HOME, killing
 * the gateway…), else `safe`. Every simple command in lists, pipelines, substitutions,
 * carriers and nested scripts is checked after bash's expansions; whatever cannot be
 * resolved is at least `risky`, and `blocked` when its words reach the floor's targets.
 */
export function assessCommand(command: string, options: Partial<PathContext> = {}): Assessment {
  if (command.length > MAX_COMMAND_CHARS) {
    return { level: 'blocked', reason: `${command.length} characters, more than the ${MAX_COMMAND_CHARS} checked before a command runs; write long content with write_file, or split the command` };
  }
  try {
    return judge(command, pathContext(options));
  } catch (error) {
    // Whatever breaks the reading (a bug, a string too odd for a regex) refuses the command rather than letting it pass.
    return { level: 'blocked', reason: `could not be checked before it runs (${errorMessage(error)})` };
  }
}

/** Longest command line the assessment reads. */
const MAX_COMMAND_CHARS = 64 * 1024;

/** Terminal escape sequences (CSI, OSC, two-character escapes): what a screen hides or redraws. */
// eslint-disable-next-line no-control-regex
const TERMINAL_ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]/g;

/** The command as a person reads it on screen: look-alike forms folded (NFKC: `ｒｍ` → `rm`), escapes and NULs dropped. */
export function screenForm(command: string): string {
  return command.normalize('NFKC').replace(TERMINAL_ESCAPES, '').replace(/\0/g, '');
}

const RANK = { safe: 0, risky: 1, blocked: 2 } as const;

/**
 * Bash's reading and the screen's reading, the worse of the two: a command hidden behind
 * look-alike letters or escapes (`ｒｍ -rf /`) is judged as what it shows. Text that folds
 * without changing the verdict (full-width punctuation in a commit message) stays as it is.
 */
function judge(command: string, ctx: PathContext): Assessment {
  const raw = judgeText(command, ctx);
  const shown = screenForm(command);
  if (shown === command.replace(/\0/g, '') || raw.level === 'blocked') return raw;
  const read = judgeText(shown, ctx);
  if (RANK[read.level] <= RANK[raw.level] || read.level === 'safe') return raw;
  return { level: read.level, reason: `${read.reason} (as it reads on screen: look-alike characters or terminal escapes hide it)` };
}

function judgeText(command: string, ctx: PathContext): Assessment {
  const bomb = forkBomb(command);
  if (bomb) return { level: 'blocked', reason: bomb };
  const hidden = hiddenCharacters(command);
  const { commands, findings } = analyzeCommand(command.replace(/\0/g, ''), ctx);
  for (const simple of commands) {
    for (const rule of FLOOR_RULES) {
      const reason = rule.check(simple, ctx);
      if (reason) return { level: 'blocked', reason };
    }
  }
  const unreadable = findings.find((finding) => finding.level === 'blocked');
  if (unreadable) return { level: 'blocked', reason: unreadable.reason };
  for (const simple of commands) {
    for (const finding of simple.findings) {
      if (finding.level === 'blocked') return { level: 'blocked', reason: finding.reason };
      const target = finding.reach ? reachedTarget(simple, ctx) : undefined;
      if (target !== undefined) return { level: 'blocked', reason: `${finding.reason}, aimed at ${showWord(target)}` };
    }
  }
  for (const simple of commands) {
    for (const rule of RISKY_RULES) {
      const reason = rule.check(simple, ctx);
      if (reason) return { level: 'risky', reason };
    }
  }
  const finding = [...findings, ...commands.flatMap((c) => c.findings)][0];
  if (finding) return { level: 'risky', reason: finding.reason };
  if (hidden) return { level: 'risky', reason: hidden };
  const downloaded = runsDownloadedFile(commands, ctx) ?? runsFileMadeExecutable(commands, ctx);
  return downloaded ? { level: 'risky', reason: downloaded } : { level: 'safe' };
}

/**
 * A file tool's write (`write_file`, `patch`) to `path` (absolute, or `~/…`): `risky` with a
 * reason for credential folders, shell start-up files, HERMES_HOME's settings, secrets,
 * plugins and skills (and /etc), also through a symlink on this host; else `safe`.
 */
export function assessFileWrite(path: string, options: Partial<PathContext> = {}): Assessment {
  const reason = fileWriteReason(path, pathContext(options));
  return reason ? { level: 'risky', reason } : { level: 'safe' };
}

/** Longest script the assessment reads (an execute_code script's limit is the model's output). */
const MAX_SCRIPT_CHARS = 256 * 1024;

/**
 * An execute_code script (Python), judged before it runs by what it does: each shell command
 * it hands on (`os.system`, `subprocess`), delete (`shutil.rmtree`, `os.remove`), rename,
 * copy, write (`open(…, "w")`) and signal (`os.kill`) is read as the shell command doing the
 * same (interpreter-code.ts) and judged by assessCommand; the reason names the line. A
 * `terminal("…")` call counts here only when it is on the floor (the script is refused before
 * it starts); otherwise it is judged when it is made, with the text it really gets. A floor
 * verdict here refuses the script whatever is approved.
 */
export function assessScript(code: string, options: Partial<PathContext> = {}): Assessment {
  if (code.length > MAX_SCRIPT_CHARS) {
    return { level: 'risky', reason: `a ${code.length}-character script, more than the ${MAX_SCRIPT_CHARS} read before it runs` };
  }
  const ctx = pathContext(options);
  try {
    if (forkLoop(code)) return { level: 'blocked', reason: 'fork bomb (the script forks in an endless loop)' };
    const reading = readCode(code, 'python', ctx);
    const judged = reading.commands.map((piece) => ({ piece, assessment: assessCommand(piece.text, ctx) }));
    const at = (line: number, call: string, reason: string) => `line ${line} (${call}): ${reason}`;
    const blockedCall = judged.find((one) => one.assessment.level === 'blocked');
    if (blockedCall && blockedCall.assessment.level === 'blocked') return { level: 'blocked', reason: at(blockedCall.piece.line, blockedCall.piece.call, blockedCall.assessment.reason) };
    const blockedFinding = reading.findings.find((one) => one.level === 'blocked');
    if (blockedFinding) return { level: 'blocked', reason: at(blockedFinding.line, blockedFinding.call, blockedFinding.reason) };
    // A risky terminal() command is asked when the script makes the call, with the text it really gets.
    const riskyCall = judged.find((one) => one.assessment.level === 'risky' && one.piece.via !== 'terminal');
    if (riskyCall && riskyCall.assessment.level === 'risky') return { level: 'risky', reason: at(riskyCall.piece.line, riskyCall.piece.call, riskyCall.assessment.reason) };
    const riskyFinding = reading.findings[0];
    if (riskyFinding) return { level: 'risky', reason: at(riskyFinding.line, riskyFinding.call, riskyFinding.reason) };
    const metadata = metadataIn(code);
    return metadata ? { level: 'risky', reason: `reaches ${metadata}` } : { level: 'safe' };
  } catch (error) {
    return { level: 'blocked', reason: `could not be checked before it runs (${errorMessage(error)})` };
  }
}
