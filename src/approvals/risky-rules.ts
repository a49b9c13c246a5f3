/*
 * Commands that run only after the user approves them: what users lose sleep over. Each
 * rule has an id, what it guards against, and a check that returns the reason shown.
 */
import type { SimpleCommand } from './command.js';
import { isUnknown, showWord } from './command.js';
import { isInterpreter, SHELLS } from './carriers.js';
import { killsGateway } from './gateway-kill.js';
import { metadataIn } from './metadata.js';
import { GIT_OPTIONS, PROGRAM_OPTIONS, hasOption, parseOptions } from './options.js';
import { expandPath, globParent, isCatastrophicTarget, within, type PathContext } from './paths.js';
import { findRoots, sysctlWrites, type Rule } from './rules.js';
import { sensitiveWrite } from './sensitive-paths.js';
import { writeTargets } from './write-targets.js';
import { DECODERS, DOWNLOADERS } from './program-kinds.js';
import { LISTED_RULES } from './listed-rules.js';

const runsPrograms = (command: SimpleCommand) => {
  const name = command.argv[0] ?? '';
  return SHELLS.has(name) || isInterpreter(name) || /^(eval|source|\.|at|batch)$/.test(name);
};

/** Programs whose output this shell or interpreter runs. */
function fedBy(command: SimpleCommand): string[] {
  const source = command.source;
  const fromStdin = source?.from === 'stdin' ? command.stdin.programs : [];
  return [...(source?.programs ?? []), ...fromStdin, ...(source?.from === 'inline' || command.argv[0] === 'eval' ? command.substituted : [])];
}

/** Commands whose operands are files they change: an operand known only at run time there could be anything. */
const TARGETED = new Set(['rm', 'rmdir', 'shred', 'unlink', 'mv', 'cp', 'ln', 'install', 'rsync', 'chmod', 'chown', 'chgrp', 'truncate', 'dd', 'tee', 'find', 'srm', 'wipe']);

/** Copiers change only their destination: an unknown source is read, not written. */
const COPIERS = new Set(['cp', 'ln', 'install', 'rsync']);

/** The operands of a TARGETED command that name files it changes (an unknown option counts too). */
function changedOperands(name: string, args: string[]): string[] {
  const words = args.filter((a) => !/^-/.test(a) || isUnknown(a));
  if (COPIERS.has(name)) {
    const attached = args.find((a) => a.startsWith('--target-directory='));
    if (attached !== undefined) return [attached.slice('--target-directory='.length)];
    const flag = args.findIndex((a) => a === '-t' || a === '--target-directory');
    return flag >= 0 ? args.slice(flag + 1, flag + 2) : words.slice(-1);
  }
  // chmod's mode and chown's owner come first; with --reference every operand is a file.
  if ((name === 'chmod' || name === 'chown' || name === 'chgrp') && !args.some((a) => a.startsWith('--reference'))) return words.slice(1);
  return words;
}

/** The arguments of a `hermes` command line however it is started (`hermes`, `npx hermes`, `node …/cli/main.js`), else undefined. */
function hermesArgs(argv: string[]): string[] | undefined {
  const [name = '', ...args] = argv;
  const isHermes = (word: string) => /^(hermes(-gateway)?)(@[\w.-]+)?$/.test(word.slice(word.lastIndexOf('/') + 1));
  if (isHermes(name)) return args;
  if (/^(npx|bunx|pnpx)$/.test(name) || (/^(npm|pnpm|yarn)$/.test(name) && /^(exec|x|dlx)$/.test(args[0] ?? ''))) {
    const rest = /^(npx|bunx|pnpx)$/.test(name) ? args : args.slice(1);
    const at = rest.findIndex((word) => !word.startsWith('-'));
    return at >= 0 && isHermes(rest[at]) ? rest.slice(at + 1).filter((w) => w !== '--') : undefined;
  }
  if (/^(node|nodejs|bun|tsx)$/.test(name)) {
    const at = args.findIndex((word) => !word.startsWith('-'));
    return at >= 0 && /(^|\/)(cli\/main\.[jt]s|hermes(-gateway)?)$/.test(args[at]) ? args.slice(at + 1) : undefined;
  }
  return undefined;
}

function gitSubcommand(argv: string[]): { sub: string; args: string[] } {
  const parsed = parseOptions(argv.slice(1), GIT_OPTIONS['']);
  const [sub = '', ...args] = argv.slice(1 + parsed.rest);
  return { sub, args };
}

/** A repository's `.git` folder: deleting it loses every commit not pushed. */
const isGitFolder = (path: string) => path.replace(/\/+$/, '').split('/').pop() === '.git';

export const RISKY_RULES: readonly Rule[] = [
  {
    id: 'git-discards-work',
    why: 'git commands that throw away work or rewrite shared history',
    check({ argv }) {
      if (argv[0] !== 'git') return undefined;
      const { sub, args } = gitSubcommand(argv);
      if (sub === 'reset' && hasOption(parseOptions(args, GIT_OPTIONS.reset), '--hard')) return 'git reset --hard discards uncommitted work';
      if (sub === 'clean' && hasOption(parseOptions(args, GIT_OPTIONS.clean), '-f', '--force')) return 'git clean -f deletes untracked files';
      if (sub === 'push') {
        const parsed = parseOptions(args, GIT_OPTIONS.push);
        if (hasOption(parsed, '-f', '--force', '--force-with-lease', '--force-if-includes', '--mirror', '--delete', '-d') || parsed.operands.some((o) => o.startsWith('+') || o.includes(':+') || /^:/.test(o))) {
          return 'git push rewrites or deletes remote history';
        }
      }
      if ((sub === 'checkout' || sub === 'restore') && args.includes('.')) return `git ${sub} . discards uncommitted changes`;
      if (sub === 'branch') {
        const parsed = parseOptions(args, GIT_OPTIONS.branch);
        if (hasOption(parsed, '-D') || (hasOption(parsed, '-d', '--delete') && hasOption(parsed, '-f', '--force'))) return 'git branch -D deletes an unmerged branch';
      }
      if (sub === 'stash' && (args[0] === 'drop' || args[0] === 'clear')) return `git stash ${args[0]} deletes stashed work`;
      if (sub === 'filter-branch' || sub === 'filter-repo') return `git ${sub} rewrites history`;
      if (sub === 'reflog' && args[0] === 'expire') return 'git reflog expire drops the safety net of old commits';
      return undefined;
    },
  },
  {
    id: 'world-writable',
    why: 'permissions anyone may write, and recursive owner changes (to root, or outside the home folder and /tmp)',
    check({ argv, cwd }, ctx) {
      const [name, ...args] = argv;
      if (name === 'chmod') {
        const parsed = parseOptions(args, PROGRAM_OPTIONS.chmod);
        const mode = parsed.operands[0] ?? '';
        if (/^0?[0-7]?[0-7][0-7]7$|^0?[0-7]?777$/.test(mode) || /^(a|ugo|o|\+)?\+[rwxXst]*w/.test(mode) || /(^|,)(a|o|ugo)[+=][rwxXst]*w/.test(mode)) {
          return `chmod ${hasOption(parsed, '-R', '--recursive') ? '-R ' : ''}${mode} makes files writable by everyone`;
        }
      }
      if (name !== 'chown' && name !== 'chgrp') return undefined;
      const parsed = parseOptions(args, PROGRAM_OPTIONS.chown);
      if (!hasOption(parsed, '-R', '--recursive')) return undefined;
      // Handing a tree to root, or changing the owner of a tree outside the home folder and /tmp, asks; a project of one's own does not.
      const reference = parsed.options.some((o) => o.names.includes('--reference'));
      const owner = reference ? '' : parsed.operands[0] ?? '';
      const files = reference ? parsed.operands : parsed.operands.slice(1);
      if (name === 'chown' && /^(root|0)([:.]|$)/.test(owner)) return `recursive chown to ${owner}`;
      const outside = files.find((file) => {
        if (isUnknown(file)) return true;
        const path = expandPath(file, ctx, cwd);
        return path.startsWith('/') && !within(path, ctx.home) && !within(path, '/tmp');
      });
      return outside === undefined ? undefined : `recursive ${name} of ${showWord(outside)}`;
    },
  },
  {
    id: 'download-run',
    why: 'running what was just downloaded (curl | sh, eval $(curl …), source <(wget …))',
    check(command) {
      if (!runsPrograms(command)) return undefined;
      const downloader = fedBy(command).find((program) => DOWNLOADERS.has(program));
      if (!downloader) return undefined;
      const name = command.argv[0];
      return command.source?.from === 'stdin' && command.stdin.kind === 'pipe' ? `pipes a download into ${name} (${downloader})` : `runs a download with ${name} (${downloader})`;
    },
  },
  {
    id: 'decoded-into-shell',
    why: 'running text that was decoded first (an obfuscated command)',
    check(command) {
      if (!runsPrograms(command)) return undefined;
      const decoder = fedBy(command).find((program) => DECODERS.has(program) && program !== command.argv[0]);
      return decoder ? `runs decoded input with ${command.argv[0]} (${decoder}: the command is hidden)` : undefined;
    },
  },
  {
    id: 'write-credentials-or-settings',
    why: 'writing credentials, shell start-up files, HERMES_HOME or /etc',
    check(command, ctx) {
      for (const target of writeTargets(command)) {
        const reason = sensitiveWrite(target, ctx, command.cwd);
        if (reason) return reason;
      }
      return undefined;
    },
  },
  {
    id: 'hermes-settings',
    why: "changing the gateway's own settings for its next start (approvals among them)",
    check({ argv }) {
      const args = hermesArgs(argv);
      if (!args) return undefined;
      const words = args.filter((w, i, all) => !w.startsWith('-') && all[i - 1] !== '--home');
      const [sub, action] = words;
      if (sub === 'config' && (action === 'set' || action === 'unset' || action === 'edit')) return `hermes config ${action} changes the gateway's settings (approvals among them)`;
      if (sub === 'plugins' && (action === 'enable' || action === 'disable' || action === 'install')) return `hermes plugins ${action} changes the code the gateway loads`;
      if (sub === 'setup') return "hermes setup rewrites the gateway's settings";
      return undefined;
    },
  },
  {
    id: 'kill-the-gateway',
    why: 'killing the gateway itself (kill, pkill, killall)',
    check: (command, ctx) => killsGateway(command, ctx.gatewayPid ?? process.pid),
  },
  {
    id: 'cloud-metadata',
    why: "reaching the cloud metadata service, which hands out the machine's credentials",
    check(command) {
      for (const word of [...command.argv, ...command.redirects.map((r) => r.target), ...command.code]) {
        const found = metadataIn(word);
        if (found) return `reaches ${found}`;
      }
      return undefined;
    },
  },
  {
    id: 'network-from-the-shell',
    why: "bash's /dev/tcp and /dev/udp connections (a reverse shell, or a download run by hand)",
    check({ redirects }) {
      const redirect = redirects.find((r) => /^\/dev\/(tcp|udp)\//.test(r.target));
      return redirect ? `opens a network connection from the shell (${showWord(redirect.target)}: a reverse shell or a hidden download)` : undefined;
    },
  },
  {
    id: 'delete-tmp-itself',
    why: 'a recursive delete of /tmp itself (other programs and users keep files there)',
    check({ argv, cwd }, ctx) {
      const isTmp = (word: string) => /^\/(var\/)?tmp$/.test(globParent(expandPath(word, ctx, cwd)));
      if (argv[0] === 'find' && argv.some((a) => /^-(delete|exec|execdir|ok|okdir)$/.test(a))) {
        const root = findRoots(argv.slice(1)).find(isTmp);
        return root === undefined ? undefined : `deletes everything under ${root} with find (/tmp itself)`;
      }
      if (argv[0] !== 'rm') return undefined;
      const parsed = parseOptions(argv.slice(1), PROGRAM_OPTIONS.rm);
      if (!hasOption(parsed, '-r', '-R', '--recursive')) return undefined;
      const target = parsed.operands.find(isTmp);
      return target === undefined ? undefined : `recursive delete of ${target} (/tmp itself)`;
    },
  },
  {
    id: 'wide-delete',
    why: 'a recursive delete outside /tmp, of `..`, `.` or `*`',
    check({ argv, cwd }, ctx) {
      if (argv[0] !== 'rm') return undefined;
      const parsed = parseOptions(argv.slice(1), PROGRAM_OPTIONS.rm);
      if (!hasOption(parsed, '-r', '-R', '--recursive')) return undefined;
      const target = parsed.operands.find((operand) => {
        const path = globParent(expandPath(operand, ctx, cwd));
        return (path.startsWith('/') && !(within(path, '/tmp') && path !== '/tmp')) || path.split('/').includes('..') || path === '*' || path === '.' || isGitFolder(path);
      });
      if (target !== undefined && isGitFolder(globParent(expandPath(target, ctx, cwd)))) return `recursive delete of ${showWord(target)} (a repository's whole history)`;
      return target === undefined ? undefined : `recursive delete of ${showWord(target)}`;
    },
  },
  {
    id: 'target-known-only-at-run-time',
    why: 'deleting, moving or changing files named only at run time',
    check(command) {
      const [name = '', ...args] = command.argv;
      const redirect = command.redirects.find((r) => /[>]/.test(r.op) && r.op !== '>&' && isUnknown(r.target));
      if (redirect) return `writes to a file named only at run time (${showWord(redirect.target)})`;
      if (!TARGETED.has(name)) return undefined;
      const words = name === 'find' ? (args.some((a) => /^-(delete|exec|execdir|ok|okdir)$/.test(a)) ? findRoots(args) : []) : changedOperands(name, args);
      const unknown = words.find(isUnknown);
      return unknown === undefined ? undefined : `${name} of a path known only at run time (${showWord(unknown)})`;
    },
  },
  {
    id: 'service-or-cron',
    why: 'stopping system services or deleting cron jobs',
    check({ argv }) {
      if (argv[0] === 'systemctl' && argv.some((w) => /^(stop|disable|mask|kill)$/.test(w))) return 'stops or disables a system service';
      if (argv[0] === 'systemctl' && argv.some((w) => /^(enable|reenable|link|edit|set-property|preset|preset-all|revert|set-default|add-wants|add-requires)$/.test(w))) {
        return 'enables or changes a service (it then starts at every boot or login, outside the session)';
      }
      if (argv[0] === 'crontab' && argv.includes('-r')) return 'crontab -r deletes every cron job';
      if (argv[0] === 'crontab' && argv.slice(1).some((w) => !w.startsWith('-') || w === '-')) return 'crontab replaces the cron jobs';
      return undefined;
    },
  },
  {
    id: 'database-wipe',
    why: 'dropping or emptying database tables (SQL given to a database client or to interpreter code)',
    check(command) {
      const name = command.argv[0] ?? '';
      if (!DATABASE_CLIENTS.test(name) && command.code.length === 0) return undefined;
      const texts = DATABASE_CLIENTS.test(name) ? [...command.argv.slice(1), command.stdin.text ?? '', ...command.redirects.map((r) => r.body ?? '')] : command.code;
      for (const text of texts) {
        const reason = databaseWipe(text);
        if (reason) return reason;
      }
      return undefined;
    },
  },
  {
    id: 'container-sees-the-host',
    why: 'a container given /, a home folder, credentials or the whole machine (what runs inside can change them)',
    check(command, ctx) {
      const [name = '', sub, ...args] = command.argv;
      if (!/^(docker|podman|nerdctl)$/.test(name) || !/^(run|create|exec)$/.test(sub ?? '')) return undefined;
      if (args.some((a) => a === '--privileged' || /^--(pid|ipc|userns)=host$/.test(a))) return `${name} ${sub} with the host's privileges (${args.find((a) => a.startsWith('--p') || a.includes('=host'))})`;
      for (const source of mountSources(args)) {
        if (isCatastrophicTarget(source, ctx, command.cwd)) return `${name} ${sub} mounts ${showWord(source)} into a container (what runs there can delete it)`;
        const sensitive = sensitiveWrite(source, ctx, command.cwd) ?? (source === '/var/run/docker.sock' || source === '/run/docker.sock' ? 'the Docker socket (root on the host)' : undefined);
        if (sensitive) return `${name} ${sub} mounts ${showWord(source)} into a container (${sensitive})`;
      }
      return undefined;
    },
  },
  {
    id: 'destroys-infrastructure',
    why: 'commands that tear down cloud resources, clusters or all of Docker\'s data',
    check({ argv }) {
      const [name = '', ...args] = argv;
      const entry = INFRASTRUCTURE.find((e) => e.program === name && e.words.every((word) => args.some((a) => a === word || a.startsWith(`${word}=`))));
      return entry ? `${name} ${entry.words.join(' ')}: ${entry.reason}` : undefined;
    },
  },
  {
    id: 'kernel-settings',
    why: "changing the running kernel's settings for the whole machine (/proc/sys, /sys, sysctl)",
    check(command, ctx) {
      const write = writeTargets(command).map((target) => expandPath(target, ctx, command.cwd)).find((path) => /^\/(proc\/sys|sys)(\/|$)/.test(path));
      if (write !== undefined) return `writes ${showWord(write)} (a kernel setting for the whole machine)`;
      const [key] = sysctlWrites(command.argv);
      if (key !== undefined) return `sysctl sets ${key} (a kernel setting for the whole machine)`;
      if (command.argv[0] === 'sysctl' && command.argv.some((w) => /^(-p.*|--load(=.*)?|--system|-[a-zA-Z]*[pw])$/.test(w))) return 'sysctl changes kernel settings for the whole machine';
      return undefined;
    },
  },
  {
    id: 'extract-into-protected-folder',
    why: 'unpacking an archive into /, a system folder or a home folder (it can overwrite start-up files, credentials and programs there)',
    check(command, ctx) {
      const folder = extractionFolder(command.argv) ?? (isExtraction(command.argv) ? command.cwd : undefined);
      if (folder === undefined || !isCatastrophicTarget(folder, ctx, command.cwd)) return undefined;
      const shown = expandPath(folder, ctx, command.cwd);
      return `${command.argv[0]} unpacks an archive into ${shown === ctx.home ? '~' : showWord(shown)} (it can overwrite start-up files, credentials and programs there)`;
    },
  },
  {
    id: 'firewall',
    why: 'flushing or changing the firewall rules (iptables -F, nft flush ruleset, ufw disable)',
    check({ argv }) {
      const [name = '', ...args] = argv;
      const first = args.find((a) => !a.startsWith('-')) ?? '';
      if (/^(ip6?tables|ip6?tables-legacy|ip6?tables-nft|ebtables|arptables)$/.test(name)) {
        const changes = args.some((w) => /^--(append|delete|insert|replace|flush|new-chain|delete-chain|policy|rename-chain)\b/.test(w) || /^-[a-zA-Z]*[ADIRFNXPE]/.test(w));
        return changes ? `${name} changes the firewall rules` : undefined;
      }
      if (/^(ip6?tables|ebtables|arptables)(-legacy|-nft)?-restore$/.test(name)) return `${name} replaces the firewall rules`;
      if (name === 'nft' && (/^(flush|delete|add|create|insert|replace|destroy|reset)$/.test(first) || args.some((w) => w === '-f' || w.startsWith('--file')))) return `nft ${first || '-f'} changes the firewall rules`;
      if (name === 'ufw' && /^(disable|reset|delete|default|allow|deny|reject|insert|route|limit)$/.test(first)) return `ufw ${first} changes the firewall`;
      if (name === 'firewall-cmd' && args.some((w) => /^--(add|remove|set|new|delete|panic-on|direct|reload|complete-reload|runtime-to-permanent)/.test(w))) return 'firewall-cmd changes the firewall';
      return undefined;
    },
  },
  {
    id: 'partition-table',
    why: "changing a disk's partition table",
    check({ argv }) {
      if (!/^(fdisk|sfdisk|cfdisk|gdisk|sgdisk|parted)$/.test(argv[0] ?? '')) return undefined;
      if (argv.some((w) => /^(-l|--list|print|-p|--print)$/.test(w))) return undefined;
      return `${argv[0]} changes a disk's partition table`;
    },
  },
  ...LISTED_RULES,
];

/** Teardown commands: all of `words` among the arguments. */
const INFRASTRUCTURE: ReadonlyArray<{ program: string; words: string[]; reason: string }> = [
  { program: 'terraform', words: ['destroy'], reason: 'destroys every resource of the configuration' },
  { program: 'terraform', words: ['apply', '-destroy'], reason: 'destroys every resource of the configuration' },
  { program: 'tofu', words: ['destroy'], reason: 'destroys every resource of the configuration' },
  { program: 'pulumi', words: ['destroy'], reason: 'destroys every resource of the stack' },
  { program: 'aws', words: ['s3', 'rm', '--recursive'], reason: 'deletes every object under the prefix' },
  { program: 'aws', words: ['s3', 'rb'], reason: 'removes a bucket' },
  { program: 'gsutil', words: ['rm', '-r'], reason: 'deletes every object under the prefix' },
  { program: 'gcloud', words: ['projects', 'delete'], reason: 'deletes a whole project' },
  { program: 'kubectl', words: ['delete', 'namespace'], reason: 'deletes a namespace and everything in it' },
  { program: 'kubectl', words: ['delete', 'ns'], reason: 'deletes a namespace and everything in it' },
  { program: 'kubectl', words: ['delete', '--all'], reason: 'deletes every resource of the kind' },
  { program: 'helm', words: ['uninstall'], reason: 'removes a release and its resources' },
  { program: 'docker', words: ['system', 'prune'], reason: "removes Docker's unused containers, images and networks (volumes too with --volumes)" },
  { program: 'docker', words: ['volume', 'prune'], reason: 'deletes unused volumes and their data' },
  { program: 'docker', words: ['volume', 'rm'], reason: "deletes a volume's data" },
  { program: 'podman', words: ['system', 'reset'], reason: "deletes all of podman's containers, images and volumes" },
  { program: 'podman', words: ['system', 'prune'], reason: "removes podman's unused containers, images and networks" },
  { program: 'podman', words: ['volume', 'prune'], reason: 'deletes unused volumes and their data' },
];

/** Host paths a `docker run` mounts: `-v src:dst`, `--volume=src:dst`, `--mount type=bind,src=…`. */
function mountSources(args: string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    const volume = arg === '-v' || arg === '--volume' ? args[i + 1] : /^--volume=/.test(arg) ? arg.slice(9) : /^-v./.test(arg) ? arg.slice(2) : undefined;
    if (volume !== undefined && volume.includes(':')) out.push(volume.slice(0, volume.indexOf(':')));
    const mount = arg === '--mount' ? args[i + 1] : /^--mount=/.test(arg) ? arg.slice(8) : undefined;
    const source = mount ? /(?:^|,)(?:src|source)=([^,]*)/.exec(mount)?.[1] : undefined;
    if (source !== undefined) out.push(source);
  });
  return out.filter((source) => source.startsWith('/') || source.startsWith('~') || source === '.' || isUnknown(source));
}

/** Programs that run SQL or database commands given in their arguments or on stdin. */
const DATABASE_CLIENTS = /^(sqlite3?|psql|pgcli|mysql|mariadb|mysqlsh|mycli|sqlcmd|isql|clickhouse(-client)?|duckdb|cockroach|mongo(sh)?|redis-cli|cqlsh|influx|usql)$/;

/** Statements that drop or empty a table, a database or a whole store. */
function databaseWipe(text: string): string | undefined {
  if (/\b(drop\s+(table|database|schema|keyspace|collection)|truncate\s+(table\s+)?\w)/i.test(text)) return 'drops or empties a database table';
  if (/\bdelete\s+from\s+[\w."`]+\s*(;|"|'|$)/i.test(text)) return 'deletes every row of a table (DELETE without WHERE)';
  if (/\b(flushall|flushdb|dropDatabase\s*\()/i.test(text)) return 'empties a whole database';
  return undefined;
}

/** Control characters and invisible marks that make a command read differently on screen than bash reads it. */
export function hiddenCharacters(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isHidden(code)) continue;
    const name = code === 13 ? 'a carriage return' : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    return `contains ${name}, which hides part of the command on screen`;
  }
  return undefined;
}

/** C0 and C1 controls except tab and newline, DEL, zero-width marks and bidirectional overrides. */
function isHidden(code: number): boolean {
  if (code === 9 || code === 10) return false;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0xfeff;
}

/** `curl -o x.sh …; sh x.sh`: a later command runs a file a downloader wrote. */
export function runsDownloadedFile(commands: readonly SimpleCommand[], ctx: PathContext): string | undefined {
  const downloaded = new Set<string>();
  for (const command of commands) {
    const name = command.argv[0] ?? '';
    if (DOWNLOADERS.has(name)) for (const target of writeTargets(command)) downloaded.add(expandPath(target, ctx, command.cwd));
    if (downloaded.size === 0) continue;
    const runs = [command.path, ...(runsPrograms(command) ? command.argv.slice(1).filter((w) => !w.startsWith('-')).slice(0, 1) : [])];
    const hit = runs.find((word) => word && downloaded.has(expandPath(word, ctx, command.cwd)));
    if (hit) return `runs ${hit}, which it just downloaded`;
  }
  return undefined;
}

/** tar (old-style `xf` too) or unzip unpacking an archive. */
function isExtraction(argv: readonly string[]): boolean {
  const [name = '', ...args] = argv;
  if (/^(tar|gtar|bsdtar)$/.test(name)) return args.some((a) => a === '--extract' || a === '--get' || /^-[A-Za-wyzA-Z]*x/.test(a)) || /^[A-Za-z]*x[A-Za-z]*$/.test(args[0] ?? '');
  return name === 'unzip' || name === 'cpio' && args.some((a) => /^-[a-zA-Z]*i/.test(a) || a === '--extract');
}

/** The folder an archive is unpacked into when the command names it (`tar -C dir`, `--directory=dir`, `unzip -d dir`). */
function extractionFolder(argv: readonly string[]): string | undefined {
  if (!isExtraction(argv)) return undefined;
  const [name, ...args] = argv;
  const flag = name === 'unzip' ? '-d' : '-C';
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === flag || word === '--directory') return args[i + 1];
    if (word.startsWith('--directory=')) return word.slice('--directory='.length);
    if (word.startsWith(flag) && word.length > 2) return word.slice(2);
  }
  return undefined;
}
