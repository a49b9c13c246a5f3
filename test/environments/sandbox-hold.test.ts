import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, chownSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { findExecutable } from '../../src/environments/index.js';
import { packageRoot } from '../../src/shared/package-root.js';

/*
 * The sandbox holds when the gateway runs as root, and as a plain user: each attack runs in a
 * child gateway process (the built package), once as root and once as nobody (setpriv), with
 * the host checked from here. When this test does not run as root, the plain-user leg is this
 * user and the root leg cannot run.
 */

const asRoot = process.getuid?.() === 0;
const ready = process.platform === 'linux' && findExecutable('bwrap') !== undefined && findExecutable('setpriv') !== undefined
  && existsSync(join(packageRoot(), 'dist/src/environments/index.js'));
if (!ready && process.env.CI !== 'true') console.log('sandbox hold tests skipped: bubblewrap, setpriv or dist/ (npm run build) is missing');

const NOBODY = 65534;
const scenarioFile = join(import.meta.dirname, 'sandbox-hold-scenario.mjs');
const works: string[] = [];
afterAll(() => {
  for (const work of works) rmSync(work, { recursive: true, force: true });
});

type Leg = 'root' | 'plain user';
const legs: Leg[] = asRoot ? ['root', 'plain user'] : ['plain user'];

/** A work folder the leg's gateway can use (nobody's own for the plain-user leg under root). */
function workFolder(leg: Leg): string {
  const work = mkdtempSync('/var/tmp/hermes-hold-');
  works.push(work);
  chmodSync(work, 0o755);
  if (leg === 'plain user' && asRoot) chownSync(work, NOBODY, NOBODY);
  return work;
}

/** Runs a scenario of sandbox-hold-scenario.mjs as the leg's gateway and returns its JSON. */
async function scenario(leg: Leg, name: string, backend = 'sandbox', work = workFolder(leg)): Promise<{ work: string; out: Record<string, unknown> }> {
  const tmp = join(work, 'tmp');
  mkdirSync(tmp, { recursive: true });
  if (leg === 'plain user' && asRoot) chownSync(tmp, NOBODY, NOBODY);
  const drop = leg === 'plain user' && asRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'] : [];
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: work, TMPDIR: tmp };
  const [file, ...args] = [...drop, process.execPath, scenarioFile, packageRoot(), work, name, backend];
  const run = await execa(file, args, { cwd: work, env, extendEnv: false, reject: false, timeout: 120_000 });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  expect(run.exitCode, `${name} as ${leg}: ${run.stderr}`).toBe(0);
  return { work, out: JSON.parse(line) as Record<string, unknown> };
}

const output = (value: unknown): string => (value as { output: string }).output;

describe.runIf(ready || process.env.CI === 'true')('the sandbox holds as root and as a plain user (attacks)', () => {
  for (const leg of legs) {
    describe(`gateway as ${leg}`, () => {
      it('opens no /proc/sys knob for writing (core_pattern, hostname, drop_caches, sysrq-trigger), has no capability and no_new_privs', async () => {
        const { out } = await scenario(leg, 'proc');
        const seen = JSON.parse(output(out.proc)) as { files: Record<string, number | string>; writable: string[]; nnp: string; capeff: string; uid: string[] };
        for (const [path, result] of Object.entries(seen.files)) expect(result, path).not.toBe('OPENED');
        // Only knobs of the sandbox's own namespaces may be open to it: its PID namespace's (ns_last_pid, pid_max) and, in
        // a user namespace of its own, its IPC namespace's (System V IPC and POSIX queues); none of the host's.
        const own = /^\/proc\/sys\/(kernel\/(ns_last_pid|pid_max|msgmax|msgmnb|msgmni|auto_msgmni|sem|shmall|shmmax|shmmni|shm_rmid_forced)|fs\/mqueue\/[a-z_]+)$/;
        expect(seen.writable.filter((path) => !own.test(path)), JSON.stringify(seen.writable)).toEqual([]);
        expect(seen.nnp).toBe('1');
        expect(seen.capeff).toMatch(/^0+$/);
        expect(seen.uid).not.toContain('0');
      });

      it('cannot point core_pattern at a workspace file: the crash runs nothing on the host, and core_pattern is unchanged', async () => {
        const before = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
        try {
          const { out } = await scenario(leg, 'core');
          expect(output(out.core)).toContain('done');
          expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
          expect(existsSync(String(out.mark))).toBe(false);
        } finally {
          // Should the attack ever work, the host gets its core_pattern back.
          if (asRoot && readFileSync('/proc/sys/kernel/core_pattern', 'utf8') !== before) {
            await execa('sh', ['-c', 'cat > /proc/sys/kernel/core_pattern'], { input: before, reject: false });
          }
        }
      });

      it('a setuid or setgid file made inside is not root\'s on the host, and run there by nobody it gives no root', async () => {
        const { work, out } = await scenario(leg, 'setuid');
        expect(output(out.made)).toContain('made');
        for (const path of [String(out.path), String(out.gpath)]) {
          const info = statSync(path);
          expect(info.uid, path).not.toBe(0);
          expect(info.gid, path).not.toBe(0);
          // Run by another local user: a hard link in a folder nobody can reach keeps the file's owner and mode bits.
          const link = join(work, `run-${info.ino}`);
          linkSync(path, link);
          const ran = await execa('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', link, '-u'], { reject: false });
          if (ran.exitCode === 0) expect(ran.stdout.trim()).not.toBe('0');
          const group = await execa('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', link, '-g'], { reject: false });
          if (group.exitCode === 0) expect(group.stdout.trim()).not.toBe('0');
          expect(ran.exitCode === 0 || group.exitCode === 0 || !asRoot).toBe(true);
        }
      });

      it('one session cannot list HERMES_HOME/sandboxes or enter another\'s folder, in its view or on the host', async () => {
        const { out } = await scenario(leg, 'sessions');
        const listing = output(out.listing);
        const own = String(out.b).split('/').pop() ?? '';
        const other = String(out.a).split('/').pop() ?? '';
        expect(listing.split('\n').filter(Boolean).sort()).toEqual(['.', '..', own].sort());
        expect(listing).not.toContain(other);
        const enter = out.enter as { output: string; exit_code: number };
        expect(enter.exit_code).not.toBe(0);
        expect(enter.output).not.toContain('private');
        const sandboxes = String(out.sandboxes);
        expect(statSync(sandboxes).mode & 0o777).toBe(0o711);
        expect(statSync(String(out.a)).mode & 0o777).toBe(0o700);
        if (asRoot) {
          // Another local user on the host: cannot list the sessions, nor enter one.
          const list = await execa('setpriv', [`--reuid=${NOBODY + 1}`, `--regid=${NOBODY + 1}`, '--clear-groups', 'ls', sandboxes], { reject: false });
          expect(list.exitCode).not.toBe(0);
          const enter = await execa('setpriv', [`--reuid=${NOBODY + 1}`, `--regid=${NOBODY + 1}`, '--clear-groups', 'cat', join(String(out.a), 'notes.txt')], { reject: false });
          expect(enter.exitCode).not.toBe(0);
          expect(enter.stdout).not.toContain('private');
        }
      });

      it('hides HERMES_HOME by what it is on disk: a symlinked HERMES_HOME or terminal.cwd shows no .env; a bind of /, of a folder holding HERMES_HOME or inside it is refused', async () => {
        const { out } = await scenario(leg, 'home');
        const secret = String(out.secret);
        const reads = out.reads as { home: string; cwd: string; run: { output: string }; file: string }[];
        expect(reads).toHaveLength(2);
        for (const read of reads) {
          expect(read.run.output, `${read.home} in ${read.cwd}`).toContain('mine');
          expect(read.run.output).toContain('end');
          expect(read.run.output).not.toContain(secret);
          expect(read.file).not.toContain(secret);
        }
        const refused = out.refused as Record<string, string>;
        expect(Object.keys(refused)).toHaveLength(6);
        for (const [bind, message] of Object.entries(refused)) {
          expect(message, bind).toContain('terminal.sandbox.extra_ro_binds');
          expect(message, bind).toMatch(/root folder|holds HERMES_HOME|inside HERMES_HOME/);
        }
      });

      // Root's leg only: a mount namespace of one's own needs root here.
      if (leg === 'root') it('hides HERMES_HOME seen through a bind mount of a folder above it, and refuses binding that folder or HERMES_HOME by that path', async () => {
        // A mount namespace of the test's own holds the bind mount (the host's mounts are left alone).
        const work = workFolder(leg);
        const run = await execa('unshare', ['-m', '--propagation', 'private', 'sh', '-c',
          'mkdir -p "$1/alias" "$1/var/home" && mount --bind "$1/var/home" "$1/alias" && exec "$2" "$3" "$4" "$1" bindhome',
          'hermes-bind', work, process.execPath, scenarioFile, packageRoot()], { env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: work }, extendEnv: false, reject: false, timeout: 120_000 });
        expect(run.exitCode, run.stderr).toBe(0);
        const out = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { secret: string; run: { output: string }; refused: Record<string, string> };
        expect(out.run.output).toContain('mine');
        expect(out.run.output).toContain('end');
        expect(out.run.output).not.toContain(out.secret);
        expect(Object.keys(out.refused)).toHaveLength(2);
        for (const [bind, message] of Object.entries(out.refused)) expect(message, bind).toMatch(/terminal\.sandbox\.extra_ro_binds.*(holds|inside) HERMES_HOME/);
      });

      for (const backend of ['sandbox', 'local']) {
        it(`${backend}: the kernel stops memory, file size, open files${backend === 'sandbox' ? ', processes' : ''} and CPU time past small limits from config`, async () => {
          const { out } = await scenario(leg, 'limits', backend);
          const said = output(out.limits);
          expect(said).toContain('memory refused');
          expect(said).toContain('fsize refused 27');
          expect(said).toContain('nofile refused 24 True');
          if (backend === 'sandbox') {
            const fork = /fork refused 11 (\d+)/.exec(output(out.fork));
            expect(fork, output(out.fork)).not.toBeNull();
            expect(Number(fork?.[1])).toBeLessThan(40);
          }
          // A CPU-bound loop ends by SIGXCPU (152) after its 1 s of CPU, long before the 60 s timeout.
          const cpu = out.cpu as { output: string; timed_out?: boolean };
          expect(cpu.timed_out).toBeUndefined();
          expect(cpu.output).toMatch(/exit=(152|137)/);
          expect(Number(out.cpuSeconds)).toBeLessThan(20);
        });
      }

      it('sandbox: the default limits stop 3 GiB, a write past 1 GiB and 1,000 processes', async () => {
        const { out } = await scenario(leg, 'defaults');
        const said = output(out.limits);
        expect(said).toContain('memory refused');
        expect(said).toContain('fsize refused 27');
        expect(said).toContain('nofile refused 24 True');
        const fork = /fork refused 11 (\d+)/.exec(output(out.fork));
        expect(fork, output(out.fork)).not.toBeNull();
        expect(Number(fork?.[1])).toBeLessThan(256);
      });
    });
  }
});
