/*
 * Which words of a command name files it writes (or removes), program by program: the
 * operands of `tee`, `touch`, `rm`; the destination of `cp`, `install`, `rsync`; both ends
 * of `mv`; the link of `ln`; files edited in place by `sed -i`; `dd of=`; `curl -o`; and
 * every redirection that writes.
 */
import type { SimpleCommand } from './command.js';
import { PROGRAM_OPTIONS, hasOption, optionValue, parseOptions, type OptionSpec } from './options.js';

/** Programs whose every operand is written. */
const ALL_OPERANDS: Record<string, OptionSpec> = {
  tee: PROGRAM_OPTIONS.tee,
  rm: PROGRAM_OPTIONS.rm,
  touch: { flags: 'acfhm', values: 'drt', long: { 'no-create': 'flag', date: 'value', 'no-dereference': 'flag', reference: 'value', time: 'value' } },
  truncate: { flags: 'co', values: 'rs', long: { 'no-create': 'flag', 'io-blocks': 'flag', reference: 'value', size: 'value' } },
  shred: { flags: 'fuvxz', values: 'ns', long: { force: 'flag', iterations: 'value', 'random-source': 'value', size: 'value', remove: 'optional', verbose: 'flag', exact: 'flag', zero: 'flag' } },
  mkdir: { flags: 'pv', values: 'mZ', long: { mode: 'value', parents: 'flag', verbose: 'flag', context: 'optional' } },
  rmdir: { flags: 'pv', long: { parents: 'flag', verbose: 'flag', 'ignore-fail-on-non-empty': 'flag' } },
  unlink: {},
  chattr: { flags: 'RVf', values: 'vp' },
  setfacl: { flags: 'bkndRLPtv', values: 'mMxX' },
  patch: { flags: 'bcefElNnRstuZ', values: 'BdDFgiopVrYzx', long: { output: 'value', 'reject-file': 'value', directory: 'value', input: 'value' } },
  sudoedit: {},
  'ssh-keygen': { flags: 'AaDeHhLlqUvy', values: 'bCEFfIJjKmNnOPrSstwZ' },
};

/** Programs that write their last operand (or the `-t` folder). */
const DESTINATION: Record<string, OptionSpec> = {
  cp: PROGRAM_OPTIONS.cp,
  install: PROGRAM_OPTIONS.install,
  rsync: PROGRAM_OPTIONS.rsync,
  scp: { flags: '346ABCOpqRrTv', values: 'cDFiJlPoSX' },
  ln: PROGRAM_OPTIONS.ln,
};

/** Files a command writes, as its words give them. */
export function writeTargets(command: SimpleCommand): string[] {
  const out: string[] = [];
  for (const redirect of command.redirects) {
    if (/>/.test(redirect.op) && redirect.op !== '>&' && redirect.op !== '<&') out.push(redirect.target);
    if (redirect.op === '<>') out.push(redirect.target);
  }
  const [name = '', ...args] = command.argv;
  if (name in ALL_OPERANDS) {
    const parsed = parseOptions(args, ALL_OPERANDS[name]);
    out.push(...(name === 'ssh-keygen' ? [optionValue(parsed, '-f') ?? ''] : parsed.operands));
  } else if (name in DESTINATION) {
    const parsed = parseOptions(args, DESTINATION[name]);
    const folder = optionValue(parsed, '-t', '--target-directory');
    if (folder !== undefined) out.push(folder);
    else if (parsed.operands.length > 1 || name === 'ln') out.push(parsed.operands[parsed.operands.length - 1] ?? '');
  } else if (name === 'chmod' || name === 'chown' || name === 'chgrp') {
    // Permissions and owners of credentials matter as much as their content. The mode or owner comes first,
    // unless --reference gives it; chmod's `-w` style modes land among the unknown options.
    const parsed = parseOptions(args, name === 'chmod' ? PROGRAM_OPTIONS.chmod : PROGRAM_OPTIONS.chown);
    const modeGiven = hasOption(parsed, '--reference') || (name === 'chmod' && parsed.unknown.some((u) => /^-[rwxXst]$/.test(u)));
    out.push(...(modeGiven ? parsed.operands : parsed.operands.slice(1)));
  } else if (name === 'mv') {
    const parsed = parseOptions(args, PROGRAM_OPTIONS.mv);
    out.push(...parsed.operands);
    const folder = optionValue(parsed, '-t', '--target-directory');
    if (folder !== undefined) out.push(folder);
  } else if (name === 'sed' || name === 'perl' || name === 'ruby') {
    const parsed = parseOptions(args, name === 'sed' ? PROGRAM_OPTIONS.sed : { flags: 'nplaw', values: 'eEIM', optional: 'i' });
    if (hasOption(parsed, '-i', '--in-place')) {
      const hasScript = hasOption(parsed, '-e', '--expression', '-f', '--file', '-E');
      out.push(...(hasScript ? parsed.operands : parsed.operands.slice(1)));
    }
  } else if (name === 'awk' || name === 'gawk') {
    if (args.some((a, i) => a === '-i' && args[i + 1] === 'inplace')) out.push(...args.slice(1).filter((a) => !a.startsWith('-')).slice(2));
  } else if (name === 'dd') {
    for (const arg of args) if (arg.startsWith('of=')) out.push(arg.slice(3));
  } else if (name === 'curl') {
    args.forEach((arg, i) => {
      if (arg === '-o' || arg === '--output') out.push(args[i + 1] ?? '');
      else if (arg.startsWith('--output=')) out.push(arg.slice(9));
      else if (/^-o./.test(arg)) out.push(arg.slice(2));
    });
  } else if (name === 'wget') {
    args.forEach((arg, i) => {
      if (arg === '-O' || arg === '--output-document') out.push(args[i + 1] ?? '');
      else if (arg.startsWith('--output-document=')) out.push(arg.slice(18));
      else if (arg === '-P' || arg === '--directory-prefix') out.push(`${args[i + 1] ?? ''}/x`);
    });
  } else if (name === 'tar') {
    const extracting = args.some((a) => /^-?[a-zA-Z]*x/.test(a) && !a.startsWith('--') || a === '--extract' || a === '--get');
    args.forEach((arg, i) => {
      if (extracting && (arg === '-C' || arg === '--directory')) out.push(`${args[i + 1] ?? ''}/x`);
      else if (extracting && arg.startsWith('--directory=')) out.push(`${arg.slice(12)}/x`);
    });
  } else if (name === 'unzip') {
    const i = args.indexOf('-d');
    if (i >= 0) out.push(`${args[i + 1] ?? ''}/x`);
  } else if (name === 'git' && args.includes('clone')) {
    const operands = args.slice(args.indexOf('clone') + 1).filter((a) => !a.startsWith('-'));
    if (operands.length >= 2) out.push(operands[operands.length - 1]);
  } else if (name === 'crontab' || name === 'visudo' || name === 'vipw') {
    // Handled by their own rules.
  }
  return out.filter((target) => target !== '');
}
