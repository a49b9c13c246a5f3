/*
 * What interpreter code given inline (`perl -e`, `python3 -c`, a here-document fed to
 * python) does that the floor cares about: a fork loop, and shell commands it hands to
 * the system (`os.system("…")`, `` `…` ``, `subprocess.run([...])`, `shutil.rmtree("/")`),
 * turned back into shell text so they are judged like any other command.
 */

/** An endless loop around fork(): a fork bomb in any language. */
export function forkLoop(code: string): boolean {
  if (!/\bfork\b/.test(code)) return false;
  return /\bwhile\s*\(?\s*(1|true|True)\s*\)?|\bfor\s*\(\s*;\s*;\s*\)|\bloop\s*(do|\{)|\buntil\s+(false|0)\b|\b1\s+while\b|\bwhile\s*\(\s*fork/.test(code) || /fork\s*(\(\s*\))?\s*while\b/.test(code);
}

const STRING = String.raw`(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)")`;

/** Calls that run a shell command given as their first string argument. */
const SHELL_CALLS = new RegExp(
  String.raw`\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|system|exec|shell_exec|passthru|popen|proc_open|execSync|exec_command|spawnSync|Kernel\.system|IO\.popen|Open3\.\w+|%x|qx)\s*[({]?\s*` + STRING,
  'g',
);
/** A list of strings passed as argv (`subprocess.run(["rm", "-rf", "/"])`). */
const ARGV_CALLS = new RegExp(String.raw`\b(?:subprocess\.\w+|os\.exec\w*|spawnSync|spawn|execFileSync|execFile|system)\s*\(\s*\[([^\]]*)\]`, 'g');
const RMTREE = new RegExp(String.raw`\b(?:shutil\.rmtree|rmtree|FileUtils\.rm_r[f]?|rm_rf|rmSync|rmdirSync|fs\.rm|fs\.promises\.rm|rimraf(?:\.sync)?|remove_dir_all)\s*\(\s*(?:os\.path\.expanduser\s*\(\s*)?` + STRING, 'g');
const BACKTICKS = /`([^`]+)`/g;
/** Calls that delete one file (`os.remove("~/.ssh/authorized_keys")`), read as `rm -- 'file'`. */
const REMOVES = new RegExp(String.raw`\b(?:os\.(?:remove|unlink|rmdir)|fs\.(?:unlinkSync|unlink|rmdirSync)|File\.delete|FileUtils\.rm|unlink)\s*\(\s*(?:os\.path\.expanduser\s*\(\s*)?` + STRING, 'g');
const WRITES = new RegExp(String.raw`\bopen\s*\(\s*(?:os\.path\.expanduser\s*\(\s*)?` + STRING + String.raw`\s*\)?\s*,\s*['"][^'"]*[wa+]`, 'g');

/** Calls that hand a shell command to the system, whatever their argument (python's `exec` runs python, so it is not here). */
const SHELL_CALL_NAMES = String.raw`\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|system|shell_exec|passthru|popen|proc_open|execSync|exec_command|spawnSync|Kernel\.system|IO\.popen|Open3\.\w+)\s*\(\s*`;
const DYNAMIC_SHELL_CALL = new RegExp(SHELL_CALL_NAMES + String.raw`(?!['"\[\s)]|%[qQwW]?[({\[])`);

/** A shell call whose command is built at run time (`os.system(chr(114) + …)`), which no reading can resolve. */
export function dynamicShellCall(code: string): string | undefined {
  const match = DYNAMIC_SHELL_CALL.exec(code);
  if (match) return match[0].replace(/\s*\(\s*$/, '');
  // `subprocess.run(["rm", "-rf", path])`: an argv list with a word that is not a literal.
  for (const list of code.matchAll(ARGV_CALLS)) {
    const rest = list[1].replace(new RegExp(STRING, 'g'), '').replace(/[\s,]/g, '');
    if (rest !== '') return list[0].replace(/\s*\(\s*\[[\s\S]*$/, '');
  }
  return undefined;
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Shell text for the commands inline code hands to the system. */
export function embeddedShell(code: string): string[] {
  const out: string[] = [];
  for (const match of code.matchAll(SHELL_CALLS)) out.push(match[1] ?? match[2] ?? '');
  for (const match of code.matchAll(ARGV_CALLS)) {
    const words = [...match[1].matchAll(new RegExp(STRING, 'g'))].map((m) => m[1] ?? m[2] ?? '');
    if (words.length > 0) out.push(words.map(quote).join(' '));
  }
  for (const match of code.matchAll(RMTREE)) out.push(`rm -rf ${quote(match[1] ?? match[2] ?? '')}`);
  for (const match of code.matchAll(WRITES)) out.push(`: > ${quote(match[1] ?? match[2] ?? '')}`);
  for (const match of code.matchAll(REMOVES)) out.push(`rm -- ${quote(match[1] ?? match[2] ?? '')}`);
  // Backticks run a shell in perl, ruby and php, not in python or node (template strings).
  if (!/\b(import|print\(|console\.|require\(|=>)/.test(code)) for (const match of code.matchAll(BACKTICKS)) out.push(match[1]);
  return out.filter((text) => text.trim() !== '');
}
