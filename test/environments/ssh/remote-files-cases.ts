import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { RemoteShellEnvironment } from '../../../src/environments/ssh/index.js';
import { readEnvFile, writeEnvFile } from '../../../src/tools/builtin/env-files.js';

/*
 * The file tools' reads and writes on a remote shell backend (SSH, Docker): over the file
 * helper's one stream, with the errors node:fs would give, and through commands when the
 * backend has no python3. Run by each backend's own test file.
 */

export interface RemoteFilesTarget {
  env: RemoteShellEnvironment;
  /** A folder on the backend for this file's files. */
  dir: string;
  /** Output of a check run on the backend. */
  sh(command: string): Promise<string>;
  /** The TMPDIR of this backend's sessions, when the backend is this host: only its processes are ours to kill. */
  sessionTmp?: string;
}

const codeOf = async (promise: Promise<unknown>) => promise.then(() => 'no error', (error: NodeJS.ErrnoException) => error.code);

/** `env` whose streams start a shell where python3 is missing (the helper cannot run). */
function withoutPython(env: RemoteShellEnvironment): RemoteShellEnvironment {
  return Object.create(env, {
    openStream: { value: (command: string, options?: object) => env.openStream(command.replace('command -v python3', 'command -v python3-not-here'), options) },
    // The helper is made per object on first use: this one gets its own.
    files: { value: undefined, writable: true },
  }) as RemoteShellEnvironment;
}

export function remoteFilesCases(get: () => RemoteFilesTarget, timeoutMs = 60_000): void {
  it('reads and writes files over one helper stream: every byte value, twenty files, one client process', async () => {
    const { env, dir } = get();
    const before = env.commandLines.length;
    const files = Array.from({ length: 20 }, (_, i) => ({ path: `${dir}/many/f${i}.bin`, data: Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, b) => b)), randomBytes(1000 + i)]) }));
    for (const file of files) await env.writeFile(file.path, file.data);
    for (const file of files) expect((await env.readFile(file.path)).equals(file.data)).toBe(true);
    // The file tools' own front door takes the same path.
    await writeEnvFile(env, `${dir}/tool.txt`, 'through the tools\n');
    expect(await readEnvFile(env, `${dir}/tool.txt`)).toMatchObject({ kind: 'file', data: Buffer.from('through the tools\n') });
    expect(env.commandLines.slice(before)).toHaveLength(1);
  }, timeoutMs);

  it('fails as node:fs would: ENOENT, EISDIR, ENOTDIR, EIO for a FIFO (no hang), EFBIG past maxBytes with the size', async () => {
    const { env, dir, sh } = get();
    await sh(`mkdir -p ${dir}/errs/sub && mkfifo ${dir}/errs/fifo && printf 12345678 > ${dir}/errs/eight`);
    expect(await codeOf(env.readFile(`${dir}/errs/missing`))).toBe('ENOENT');
    expect(await codeOf(env.readFile(`${dir}/errs/sub`))).toBe('EISDIR');
    expect(await codeOf(env.readFile(`${dir}/errs/eight/below`))).toBe('ENOTDIR');
    expect(await codeOf(env.readFile(`${dir}/errs/fifo`))).toBe('EIO');
    const big = await env.readFile(`${dir}/errs/eight`, { maxBytes: 4 }).catch((error: NodeJS.ErrnoException & { size?: number }) => error);
    expect(big).toMatchObject({ code: 'EFBIG', size: 8 });
    expect((await env.readFile(`${dir}/errs/eight`, { maxBytes: 8 })).toString()).toBe('12345678');
    expect(await codeOf(env.writeFile(`${dir}/errs/sub`, 'x'))).toBe('EISDIR');
    expect(await codeOf(env.writeFile(`${dir}/errs/eight/below`, 'x'))).toBe('ENOTDIR');
  }, timeoutMs);

  it('writes in place, as `cat > file` there would: through a symlink, keeping the mode', async () => {
    const { env, dir, sh } = get();
    await sh(`mkdir -p ${dir}/inplace && printf old > ${dir}/inplace/target && chmod 640 ${dir}/inplace/target && ln -sf target ${dir}/inplace/link`);
    await env.writeFile(`${dir}/inplace/link`, 'new');
    expect(await sh(`cat ${dir}/inplace/target; echo; stat -c %a ${dir}/inplace/target; [ -L ${dir}/inplace/link ] && echo still-a-link`)).toBe('new\n640\nstill-a-link\n');
  }, timeoutMs);

  it('an aborted read fails with AbortError and the next read works', async () => {
    const { env, dir } = get();
    await env.writeFile(`${dir}/abort.txt`, 'fine');
    const controller = new AbortController();
    controller.abort('user sent a new message');
    await expect(env.readFile(`${dir}/abort.txt`, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect((await env.readFile(`${dir}/abort.txt`)).toString()).toBe('fine');
  }, timeoutMs);

  it('replaces a helper killed on the backend: the next read works', async () => {
    const { env, dir, sh, sessionTmp } = get();
    await env.writeFile(`${dir}/survive.txt`, 'still here');
    // The helper's command line holds its source (the quotes keep this command's own from
    // matching); on this host, only a helper of this test's sshd (its sessions' TMPDIR) is ours.
    const ours = sessionTmp ? `tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -qx 'TMPDIR=${sessionTmp}' && ` : '';
    const killed = await sh(`for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q 'answer({"hel''lo": 1})' && ${ours}kill -KILL \${p#/proc/} && echo killed; done; true`);
    expect(killed).toContain('killed');
    expect((await env.readFile(`${dir}/survive.txt`)).toString()).toBe('still here');
  }, timeoutMs);

  it('reads and writes through commands when the backend has no python3 for the helper', async () => {
    const { env, dir } = get();
    const bare = withoutPython(env);
    const data = Buffer.from(Array.from({ length: 256 }, (_, b) => b));
    await bare.writeFile(`${dir}/bare/file.bin`, data);
    expect((await bare.readFile(`${dir}/bare/file.bin`)).equals(data)).toBe(true);
    expect(await codeOf(bare.readFile(`${dir}/bare/missing`))).toBe('ENOENT');
    expect((await env.readFile(`${dir}/bare/file.bin`)).equals(data)).toBe(true);
  }, timeoutMs);
}
