import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { DoctorCheck } from '../provider.js';
import { BackendError } from '../registry.js';
import { findExecutable } from '../which.js';
import type { PayloadTools } from './bwrap-args.js';
import { SESSION_UID_SPAN } from './sandbox-identity.js';
import { inside, realOrSelf } from './system-view.js';

/** A util-linux helper, only where the sandbox's view has it too (under the system folders it binds). */
function systemTool(name: string): string | undefined {
  const found = findExecutable(name);
  if (!found) return undefined;
  const real = realOrSelf(found);
  return ['/usr', '/bin', '/sbin', '/lib'].some((folder) => inside(folder, real)) ? found : undefined;
}

/** What a trial run as root showed: whether the drop holds, and whether a user namespace can follow it. */
interface DropTrial {
  ok: boolean;
  userns: boolean;
  detail: string;
}

const trials = new Map<string, DropTrial>();

/** Runs `cat /proc/self/status` the way a sandboxed command starts as root, and reads what it holds. */
function tryDrop(bwrap: string, tools: PayloadTools, uid: number): { ok: boolean; detail: string } {
  const args = [
    '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--unshare-pid', '--die-with-parent',
    '--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP', '--cap-add', 'CAP_DAC_OVERRIDE', '--',
    tools.setpriv, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--',
    ...(tools.unshare ? [tools.unshare, '--user', '--map-current-user', '--'] : []),
    tools.prlimit, '--nproc=64:64', '--', 'cat', '/proc/self/status',
  ];
  const run = spawnSync(bwrap, args, { encoding: 'utf8', timeout: 10_000 });
  if (run.status !== 0) return { ok: false, detail: (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0] };
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(run.stdout)?.[1]?.trim() ?? '';
  const ids = field('Uid').split(/\s+/);
  const capEff = field('CapEff');
  if (ids.length < 4 || ids.some((id) => id !== String(uid))) return { ok: false, detail: `the command ran as uids ${ids.join(' ')}, not ${uid}` };
  if (!/^0+$/.test(capEff)) return { ok: false, detail: `the command kept capabilities (CapEff ${capEff})` };
  if (field('NoNewPrivs') !== '1') return { ok: false, detail: 'no_new_privs was not set' };
  return { ok: true, detail: 'ok' };
}

/** Root only: does the drop to `uid` hold, and may a user namespace follow it? Asked once per process. */
function dropTrial(bwrap: string, tools: PayloadTools, uid: number): DropTrial {
  const key = `${bwrap}\0${uid}`;
  const known = trials.get(key);
  if (known) return known;
  let trial: DropTrial;
  const withUserns = tools.unshare ? tryDrop(bwrap, tools, uid) : { ok: false, detail: 'unshare (util-linux) not found' };
  if (withUserns.ok) trial = { ok: true, userns: true, detail: 'ok' };
  else {
    const plain = tryDrop(bwrap, { ...tools, unshare: undefined }, uid);
    trial = { ok: plain.ok, userns: false, detail: plain.ok ? `no user namespace after the drop (${withUserns.detail})` : plain.detail };
  }
  trials.set(key, trial);
  return trial;
}

/**
 * The helpers a sandboxed command starts through, or a refusal: without prlimit its limits
 * would not hold, and as root without a drop that is shown to hold (a trial run reads its
 * uids, capabilities and no_new_privs) the sandbox does not run at all.
 */
export function sandboxTools(bwrap: string, asRoot: boolean, uid: number): PayloadTools {
  const tools = helperTools(bwrap, asRoot, uid);
  return { ...tools, disableUserns: knowsDisableUserns(bwrap) };
}

const versions = new Map<string, boolean>();

/** bwrap 0.8.0 and later know `--disable-userns`; asked once per binary. */
function knowsDisableUserns(bwrap: string): boolean {
  const known = versions.get(bwrap);
  if (known !== undefined) return known;
  const match = /(\d+)\.(\d+)/.exec(spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 }).stdout ?? '');
  const answer = match !== null && (Number(match[1]) > 0 || Number(match[2]) >= 8);
  versions.set(bwrap, answer);
  return answer;
}

function helperTools(bwrap: string, asRoot: boolean, uid: number): PayloadTools {
  const prlimit = systemTool('prlimit');
  if (!prlimit) throw new BackendError('BACKEND_UNAVAILABLE', 'sandbox: prlimit (util-linux) is not in /usr, /bin or /sbin, and the sandbox does not run without its limits (terminal.limits). Install util-linux.');
  const setpriv = systemTool('setpriv');
  if (!asRoot) return { setpriv: setpriv ?? 'setpriv', prlimit };
  if (!setpriv) throw new BackendError('BACKEND_UNAVAILABLE', 'sandbox: the gateway runs as root and setpriv (util-linux) is not in /usr, /bin or /sbin, so the sandbox cannot drop to an unprivileged user; it refuses to run commands as root. Install util-linux.');
  const tools: PayloadTools = { setpriv, prlimit, unshare: systemTool('unshare') };
  const trial = dropTrial(bwrap, tools, uid);
  if (!trial.ok) {
    throw new BackendError('BACKEND_UNAVAILABLE', `sandbox: the gateway runs as root, and a trial of the sandbox's drop to uid ${uid} (terminal.sandbox.uid) did not hold: ${trial.detail}. It refuses to run commands that would keep root's powers.`);
  }
  return trial.userns ? tools : { ...tools, unshare: undefined };
}

/** Names /etc/passwd gives ids in [from, from + span). */
function namedIds(from: number, span: number): string[] {
  try {
    return readFileSync('/etc/passwd', 'utf8').split('\n').flatMap((line) => {
      const [name, , id] = line.split(':');
      const uid = Number(id);
      return Number.isInteger(uid) && uid >= from && uid < from + span ? [`${name} (${uid})`] : [];
    });
  } catch {
    return [];
  }
}

/** Doctor: who the sandbox's processes are on the host, and what that means as root. */
export function isolationCheck(bwrap: string, uid: number): DoctorCheck {
  const name = 'sandbox: isolation';
  if (process.getuid?.() !== 0) {
    return { name, ok: true, detail: `commands run as this user (uid ${process.getuid?.() ?? '?'}) in a user namespace of their own (bwrap --unshare-user), with no capability in the host's namespaces; the limits count each sandbox apart` };
  }
  let tools: PayloadTools;
  try {
    tools = sandboxTools(bwrap, true, uid);
  } catch (error) {
    return { name, ok: false, detail: (error as Error).message, fix: 'install util-linux (setpriv, prlimit, unshare), or run the gateway as a plain user' };
  }
  const taken = namedIds(uid, SESSION_UID_SPAN);
  const who = `commands run as host uids ${uid}–${uid + SESSION_UID_SPAN - 1} (one per session folder; terminal.sandbox.uid), with no capability, no groups and no_new_privs, so /proc's global knobs are not theirs to write and a setuid bit they set is not root's`;
  if (!tools.unshare) {
    return {
      name, ok: true,
      detail: `${who}; no user namespace could be made after the drop, so RLIMIT_NPROC counts a session's uid across its sandboxes`,
    };
  }
  if (taken.length > 0) {
    return { name, ok: false, required: false, detail: `${who}; but /etc/passwd names ids in that range: ${taken.slice(0, 3).join(', ')}`, fix: 'set terminal.sandbox.uid to a range no account uses' };
  }
  return { name, ok: true, detail: `${who}; each sandbox is a user namespace of its own (unshare --user after the drop), where the limits count its processes alone` };
}
