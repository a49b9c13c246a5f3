import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { LocalEnvironment, type LocalEnvironmentOptions } from '../local.js';
import { bwrapArgs } from './bwrap-args.js';

export interface SandboxEnvironmentOptions extends Omit<LocalEnvironmentOptions, 'cwd'> {
  /** Host folder mounted read-write at the same path; commands start there. */
  workspace: string;
  /** Private host folder that becomes /tmp inside the sandbox. */
  tmp: string;
  network: boolean;
  extraRoBinds?: readonly string[];
  /** Host folders the sandbox must not see (HERMES_HOME). */
  hide?: readonly string[];
  /** The bubblewrap executable. */
  bwrap?: string;
  /** Delete the workspace on cleanup (a per-session workspace of a non-persistent backend). */
  removeWorkspace?: boolean;
}

/**
 * Commands run under bubblewrap: new PID, IPC, UTS and (unless `network`) network
 * namespaces, the system read-only, the workspace read-write, a private /tmp. Killing a
 * command's process group kills bwrap, and with it the whole PID namespace: daemons that
 * left the group with setsid die too.
 */
export class SandboxEnvironment extends LocalEnvironment {
  private readonly sandbox: SandboxEnvironmentOptions;

  constructor(options: SandboxEnvironmentOptions) {
    super({ ...options, cwd: options.workspace });
    this.sandbox = options;
  }

  protected override wrap(argv: string[], cwd: string, binds: string[]): { file: string; args: string[]; cwd: string } {
    const args = bwrapArgs({
      workspace: this.cwd,
      tmp: this.sandbox.tmp,
      network: this.sandbox.network,
      extraRoBinds: this.sandbox.extraRoBinds ?? [],
      // A tmpfs needs a mount point, and the read-only root cannot get a new one.
      hide: (this.sandbox.hide ?? []).filter((path) => existsSync(path)),
      binds: binds.map((path) => resolve(path)),
      chdir: cwd,
    });
    // bwrap itself starts in the workspace, which exists on the host; --chdir sets the inner cwd.
    return { file: this.sandbox.bwrap ?? 'bwrap', args: [...args, ...argv], cwd: this.cwd };
  }

  /** File tools read what the sandbox sees: /tmp is the private folder, hidden folders are empty. */
  override async readFile(path: string): Promise<Buffer> {
    return super.readFile(this.hostPath(path, false));
  }

  /** File tools write only where sandboxed commands can: the workspace and /tmp. */
  override async writeFile(path: string, data: Buffer | string): Promise<void> {
    return super.writeFile(this.hostPath(path, true), data);
  }

  override async cleanup(): Promise<void> {
    await rm(this.sandbox.tmp, { recursive: true, force: true });
    if (this.sandbox.removeWorkspace) await rm(this.cwd, { recursive: true, force: true });
  }

  /** The host path behind a path as the sandbox sees it; EROFS/ENOENT the way the sandbox would fail. */
  private hostPath(path: string, write: boolean): string {
    const full = this.resolvePath(path);
    if (inside(this.cwd, full)) return full;
    if (inside('/tmp', full)) return join(this.sandbox.tmp, relative('/tmp', full));
    if ((this.sandbox.hide ?? []).some((hidden) => inside(hidden, full))) {
      throw Object.assign(new Error(`ENOENT: no such file or directory (hidden from the sandbox), '${full}'`), { code: 'ENOENT' });
    }
    if (write) {
      throw Object.assign(new Error(`EROFS: read-only file system in the sandbox, '${full}' (write under ${this.cwd} or /tmp)`), { code: 'EROFS' });
    }
    return full;
  }
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
