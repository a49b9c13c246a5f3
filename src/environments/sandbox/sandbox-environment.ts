import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LocalEnvironment, type LocalEnvironmentOptions } from '../local.js';
import type { EnvironmentKind, FileOptions, HostCommand, ReadFileOptions, SpillFolder } from '../types.js';
import { bwrapArgs } from './bwrap-args.js';
import { readInSandbox, writeInSandbox } from './sandbox-files.js';
import { inside, systemView } from './system-view.js';

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
  /** Host folders hidden should the workspace hold them (HERMES_HOME). */
  hide?: readonly string[];
  /** The bubblewrap executable. */
  bwrap?: string;
  /** Delete the workspace on cleanup (a per-session workspace of a non-persistent backend). */
  removeWorkspace?: boolean;
}

/** Where the sandbox sees the spill folder. */
const SPILL_VISIBLE = '/tmp/hermes-spill';

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

  constructor(options: SandboxEnvironmentOptions) {
    super({ ...options, cwd: options.workspace });
    this.sandbox = options;
  }

  protected override get home(): string {
    return this.cwd;
  }

  protected override wrap(argv: string[], cwd: string, mounts: { binds: string[]; readOnly: string[] }): { file: string; args: string[]; cwd: string } {
    const { system, masks } = systemView();
    const args = bwrapArgs({
      workspace: this.cwd,
      tmp: this.sandbox.tmp,
      spill: { host: this.sandbox.spill, visible: SPILL_VISIBLE },
      network: this.sandbox.network,
      system,
      masks,
      readOnly: [...(this.sandbox.readOnly ?? []), ...mounts.readOnly.map((path) => resolve(path))],
      // A tmpfs needs a mount point, which only the writable workspace can give.
      hide: (this.sandbox.hide ?? []).filter((path) => inside(this.cwd, path) && existsSync(path)),
      binds: mounts.binds.map((path) => resolve(path)),
      chdir: cwd,
    });
    // bwrap itself starts in the workspace, which exists on the host; --chdir sets the inner cwd.
    return { file: this.sandbox.bwrap ?? 'bwrap', args: [...args, ...argv], cwd: this.cwd };
  }

  /** Reads what `cat` inside the sandbox would read. */
  override readFile(path: string, options: ReadFileOptions = {}): Promise<Buffer> {
    return readInSandbox((argv) => this.runInside(argv), this.resolvePath(path), options);
  }

  /** Writes where a command inside the sandbox could: the workspace and /tmp. */
  override writeFile(path: string, data: Buffer | string, options: FileOptions = {}): Promise<void> {
    return writeInSandbox((argv) => this.runInside(argv), this.resolvePath(path), data, options);
  }

  /** Cut stdout goes to a folder the sandbox reads at /tmp/hermes-spill and cannot change. */
  override spillFolder(): SpillFolder {
    return { host: this.sandbox.spill, visible: SPILL_VISIBLE };
  }

  override async cleanup(): Promise<void> {
    await super.cleanup();
    await rm(this.sandbox.tmp, { recursive: true, force: true });
    await rm(this.sandbox.spill, { recursive: true, force: true });
    if (this.sandbox.removeWorkspace) await rm(this.cwd, { recursive: true, force: true });
  }

  private runInside(argv: string[]): HostCommand {
    return this.hostCommand(argv, {});
  }
}
