import { constants, existsSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { LocalEnvironment, type LocalEnvironmentOptions, type WrapExtras } from '../local.js';
import { prlimitArgs, type ResourceLimits } from '../limits.js';
import { fileError } from '../file-errors.js';
import type { Environment, EnvironmentKind, FileOptions, HostCommand, ReadFileOptions, SpillFolder } from '../types.js';
import { bwrapArgs, payloadPrefix, type PayloadTools } from './bwrap-args.js';
import { readInSandbox, writeInSandbox } from './sandbox-files.js';
import { FileHelper, FileHelperUnavailable } from '../ssh/file-helper.js';
import { residentStream } from './resident-stream.js';
import { mountPointFolders, shareFolder, type SandboxIdentity } from './sandbox-identity.js';
import { systemView } from './system-view.js';

export interface SandboxEnvironmentOptions extends Omit<LocalEnvironmentOptions, 'cwd'> {
  /** Host folder mounted read-write at the same path; commands start there, and it is `~` inside. */
  workspace: string;
  /** Private host folder that becomes /tmp inside the sandbox. */
  tmp: string;
  /**
   * Host folder where the gateway saves a cut stdout; the sandbox sees it read-only at
   * /tmp/hermes-spill. Not in the writable /tmp: a script could put a symlink there and have
   * the gateway write on the host wherever it points.
   */
  spill: string;
  network: boolean;
  /** Host paths shown read-only: `terminal.sandbox.extra_ro_binds`, the interpreter's prefixes. */
  readOnly?: readonly string[];
  /** Paths in the view where HERMES_HOME shows through the workspace (found by disk identity), hidden behind an empty tmpfs. */
  hide?: readonly string[];
  /** Gateway as root: the host user the sandbox's processes become. */
  dropTo?: SandboxIdentity;
  /** setpriv, prlimit and (where a user namespace may be made) unshare. */
  tools: PayloadTools;
  /** Kernel-enforced limits of every process inside. */
  limits: ResourceLimits;
  /** The bubblewrap executable. */
  bwrap?: string;
  /** Delete the workspace on cleanup (a per-session workspace of a non-persistent backend). */
  removeWorkspace?: boolean;
}

/** Where the sandbox sees the spill folder. */
const SPILL_VISIBLE = '/tmp/hermes-spill';
/** The resident file helper ends after this long without a request (a platform session may sit idle for hours). */
const FILE_HELPER_IDLE_MS = 5 * 60_000;

/**
 * Commands run under bubblewrap in a view built from parts (see bwrapArgs): the system
 * read-only and less its secrets, the workspace read-write, a private /tmp, /proc and /dev,
 * and nothing else of the host. New PID, IPC, UTS and (unless `network`) network namespaces:
 * killing a command's group kills bwrap, and with it every process inside, setsid or not.
 * The file tools run inside too, so they reach what a command reaches and nothing more.
 */
export class SandboxEnvironment extends LocalEnvironment {
  override readonly kind: EnvironmentKind = 'isolated';
  private readonly sandbox: SandboxEnvironmentOptions;
  /**
   * The file tools' reads and writes: one resident helper inside the same view (the SSH
   * backend's, started through the same wrap as `cat` would be), so a call is one round
   * trip on its pipes instead of a bubblewrap process. Without python3 inside, the shell path serves.
   */
  private readonly files: FileHelper;

  constructor(options: SandboxEnvironmentOptions) {
    super({ ...options, cwd: options.workspace });
    this.sandbox = options;
    this.files = new FileHelper((command) => residentStream(this.runInside(['/bin/sh', '-c', command])), { where: 'sandbox', idleMs: FILE_HELPER_IDLE_MS });
  }

  protected override get home(): string {
    return this.cwd;
  }

  /** The working folder is the sandbox's workspace mount: a terminal `cd` does not move it. */
  override followCwd(): boolean {
    return false;
  }

  /** Nothing to keep apart: the working folder never moves. */
  override forSession(): Environment {
    return this;
  }

  protected override wrap(argv: string[], cwd: string, mounts: WrapExtras): { file: string; args: string[]; cwd: string } {
    const { system, masks } = systemView();
    const dropTo = this.sandbox.dropTo;
    // A folder bound read-write (the staging folder with the RPC socket) must be the sandbox user's to use.
    if (dropTo) {
      for (const path of mounts.binds) shareFolder(resolve(path), dropTo);
      mountPointFolders(this.sandbox.tmp, [this.cwd, ...mounts.binds.map((path) => resolve(path))], dropTo);
    }
    const args = bwrapArgs({
      workspace: this.cwd,
      tmp: this.sandbox.tmp,
      spill: { host: this.sandbox.spill, visible: SPILL_VISIBLE },
      network: this.sandbox.network,
      system,
      masks,
      readOnly: [...(this.sandbox.readOnly ?? []), ...mounts.readOnly.map((path) => resolve(path))],
      // A tmpfs needs a mount point, which only the writable workspace can give.
      hide: (this.sandbox.hide ?? []).filter((path) => existsSync(path)),
      binds: mounts.binds.map((path) => resolve(path)),
      chdir: cwd,
      dropTo,
      disableUserns: this.sandbox.tools.disableUserns,
    });
    const prefix = payloadPrefix(this.sandbox.tools, dropTo, prlimitArgs(this.sandbox.limits, { cpuSeconds: mounts.cpuSeconds, processes: true }));
    // bwrap itself starts in the workspace, which exists on the host; --chdir sets the inner cwd.
    return { file: this.sandbox.bwrap ?? 'bwrap', args: [...args, ...prefix, ...argv], cwd: this.cwd };
  }

  /**
   * Reads what `cat` inside the sandbox would read. A cut stdout in the spill folder is read
   * on the host: the gateway writes it for itself (mode 0600), the sandbox cannot change that
   * folder (read-only inside, the gateway's on the host), and a name with no `/` cannot walk out.
   */
  override readFile(path: string, options: ReadFileOptions = {}): Promise<Buffer> {
    const full = this.resolvePath(path);
    if (dirname(full) === SPILL_VISIBLE && basename(full) !== '..' && basename(full) !== '.') return this.readSpill(resolve(this.sandbox.spill, basename(full)), options);
    return this.readInside(full, options);
  }

  private async readInside(full: string, options: ReadFileOptions): Promise<Buffer> {
    try {
      return await this.files.read(full, options);
    } catch (error) {
      if (!(error instanceof FileHelperUnavailable)) throw error;
    }
    return readInSandbox((argv) => this.runInside(argv), full, options);
  }

  private async readSpill(host: string, options: ReadFileOptions): Promise<Buffer> {
    const handle = await open(host, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw fileError('EIO', host, undefined, 'not a regular file');
      if (options.maxBytes !== undefined && info.size > options.maxBytes) throw fileError('EFBIG', host, info.size);
      return await handle.readFile({ signal: options.signal });
    } finally {
      await handle.close();
    }
  }

  /** Writes where a command inside the sandbox could: the workspace and /tmp. */
  override async writeFile(path: string, data: Buffer | string, options: FileOptions = {}): Promise<void> {
    const full = this.resolvePath(path);
    try {
      return await this.files.write(full, data, options);
    } catch (error) {
      if (!(error instanceof FileHelperUnavailable)) throw error;
    }
    return writeInSandbox((argv) => this.runInside(argv), full, data, options);
  }

  /** Cut stdout goes to a folder the sandbox reads at /tmp/hermes-spill and cannot change. */
  override spillFolder(): SpillFolder {
    return { host: this.sandbox.spill, visible: SPILL_VISIBLE };
  }

  override async cleanup(): Promise<void> {
    await super.cleanup();
    await this.files.close();
    await rm(this.sandbox.tmp, { recursive: true, force: true });
    await rm(this.sandbox.spill, { recursive: true, force: true });
    if (this.sandbox.removeWorkspace) await rm(this.cwd, { recursive: true, force: true });
  }

  private runInside(argv: string[]): HostCommand {
    return this.hostCommand(argv, {});
  }
}
