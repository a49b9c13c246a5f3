/*
 * Commands aimed at the gateway itself: `kill` of its pid (or of `$PPID`, which is the
 * gateway for a command it started), `pkill`/`killall` whose pattern matches its process
 * name or command line (`pkill node`, `pkill -f hermes`), or a pid known only at run time.
 */
import { readFileSync } from 'node:fs';
import type { SimpleCommand } from './command.js';
import { isUnknown, showWord } from './command.js';
import { PROGRAM_OPTIONS, hasOption, optionValue, parseOptions } from './options.js';

/** How the gateway may be named: its process name and its command line, read once per pid. */
interface GatewayNames {
  comm: string[];
  cmdline: string[];
}

/** Names the gateway has however it was started (`node …/hermes gateway`), besides what /proc says. */
const DEFAULT_NAMES: GatewayNames = {
  comm: ['node', 'nodejs', 'hermes', 'hermes-gateway'],
  cmdline: ['node /usr/local/bin/hermes gateway', '/usr/bin/node /usr/lib/node_modules/hermes-gateway/dist/src/cli/main.js gateway', 'hermes gateway'],
};

const cache = new Map<number, GatewayNames>();

export function gatewayNames(pid: number): GatewayNames {
  const known = cache.get(pid);
  if (known) return known;
  const names: GatewayNames = { comm: [...DEFAULT_NAMES.comm], cmdline: [...DEFAULT_NAMES.cmdline] };
  try {
    names.comm.push(readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
    names.cmdline.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' '));
  } catch {
    // Not Linux, or not readable: the defaults stand.
  }
  cache.set(pid, names);
  return names;
}

/** The pids a `kill` command signals. */
export function killTargets(args: string[]): string[] {
  let i = 0;
  if (args[0] === '-s' || args[0] === '-n') i = 2;
  else if (args[0] !== undefined && args[0] !== '--' && args[0].startsWith('-') && !isUnknown(args[0])) i = 1;
  if (args[i] === '--') i++;
  return args.slice(i);
}

function patternMatches(pattern: string, names: string[], ignoreCase: boolean, exact: boolean): boolean {
  try {
    const re = new RegExp(exact ? `^(?:${pattern})$` : pattern, ignoreCase ? 'i' : '');
    return names.some((name) => re.test(name));
  } catch {
    return true;
  }
}

/** Why this command may kill the gateway, or undefined. */
export function killsGateway({ argv }: SimpleCommand, gatewayPid: number): string | undefined {
  const [name, ...args] = argv;
  if (name === 'kill') {
    if (args.some((a) => /^-(l|L|-list|-table)$/.test(a))) return undefined;
    for (const target of killTargets(args)) {
      if (isUnknown(target)) return `kill of a process known only at run time (${showWord(target)}; it may be the gateway)`;
      if (target === String(gatewayPid) || target === `-${gatewayPid}`) return `kills the gateway itself (pid ${gatewayPid})`;
    }
    return undefined;
  }
  if (name === 'pkill' || name === 'killall' || name === 'pgrep' || name === 'skill') {
    if (name === 'pgrep') return undefined;
    const parsed = parseOptions(args, PROGRAM_OPTIONS[name === 'killall' ? 'killall' : 'pkill']);
    if (parsed.unknown.length > 0) return `${name} with options it does not know (${parsed.unknown.join(' ')}; it may kill the gateway)`;
    const names = gatewayNames(gatewayPid);
    const parent = optionValue(parsed, '-P', '--parent');
    if (parent !== undefined && (isUnknown(parent) || parent.split(',').includes(String(gatewayPid)))) return `${name} of the gateway's children`;
    const user = hasOption(parsed, '-u', '-U', '--euid', '--uid', '--user');
    if (parsed.operands.length === 0) return user ? `${name} of every process of a user (the gateway among them)` : undefined;
    for (const pattern of parsed.operands) {
      if (isUnknown(pattern)) return `${name} of processes named only at run time (${showWord(pattern)}; it may be the gateway)`;
      const full = name === 'pkill' ? hasOption(parsed, '-f', '--full') : pattern.includes('/');
      const regex = name === 'pkill' || hasOption(parsed, '-r', '--regexp');
      const ignoreCase = hasOption(parsed, '-i', '-I', '--ignore-case');
      const exact = name === 'killall' ? !regex : hasOption(parsed, '-x', '--exact');
      const pool = full ? names.cmdline : names.comm.map((n) => n.slice(0, 15));
      const matched = regex ? patternMatches(pattern, pool, ignoreCase, exact) : pool.some((n) => (ignoreCase ? n.toLowerCase() === pattern.toLowerCase() : n === pattern) || n.endsWith(`/${pattern}`));
      if (matched) return `${name} ${pattern} matches the gateway itself`;
    }
    return undefined;
  }
  if (name === 'fuser' && args.some((a) => /^-\w*k/.test(a) || a === '--kill')) return 'fuser -k kills whatever uses it (the gateway among them, perhaps)';
  return undefined;
}
