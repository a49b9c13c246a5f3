// An example terminal backend plugin for hermes-gateway.
//
// Copy this folder to HERMES_HOME/plugins/folderbox, then:
//   hermes plugins enable folderbox
//   hermes config set terminal.backend folderbox
//
// Commands run on this host in one folder: FOLDERBOX_DIR, else HERMES_HOME/folderbox.
// Every terminal output starts with "[folderbox] " so you can see which backend ran it.
// FOLDERBOX_TOKEN stands for a provider secret: listing it in stripEnvKeys removes it from
// every child process the gateway starts, whichever backend is active.
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const MARKER = '[folderbox] ';

/** The folder commands run in. */
function folderFor(options) {
  if (process.env.FOLDERBOX_DIR) return resolve(process.env.FOLDERBOX_DIR);
  if (typeof options.hermesHome === 'string') return join(options.hermesHome, 'folderbox');
  return resolve(options.cwd, 'folderbox');
}

/** Wraps the gateway's LocalEnvironment: same process groups, timeouts and interrupts. */
class FolderboxEnvironment {
  constructor(inner) {
    this.inner = inner;
    this.cwd = inner.cwd;
    // Commands run on this host as the gateway's user and see its files.
    this.kind = 'host';
    // Where a script's cut stdout is saved, when the gateway's LocalEnvironment says.
    if (typeof inner.spillFolder === 'function') this.spillFolder = () => inner.spillFolder();
  }

  async execute(command, options) {
    const result = await this.inner.execute(command, options);
    return { ...result, output: MARKER + result.output };
  }

  // Lets execute_code start its Python here too; the process runs on this host in the folder.
  hostCommand(argv, options) {
    return this.inner.hostCommand(argv, { ...options, cwd: options.cwd ?? this.cwd });
  }

  // The file tools read and write directly, so the marker never lands in a file.
  readFile(path, options) {
    return this.inner.readFile(path, options);
  }

  writeFile(path, data, options) {
    return this.inner.writeFile(path, data, options);
  }

  resolvePath(path) {
    return this.inner.resolvePath(path);
  }

  async cleanup() {
    await this.inner.cleanup();
  }
}

export function register(ctx) {
  ctx.registerTerminalEnvironmentProvider({
    name: 'folderbox',
    displayName: 'Folderbox (example plugin)',
    description: 'Runs commands on this host in one chosen folder (FOLDERBOX_DIR) and marks their output.',
    isRemote: false,
    isContainer: false,
    stripEnvKeys: ['FOLDERBOX_TOKEN'],
    sessionIsolatedWhenNonpersistent: false,
    envDescription: 'Commands run on the host in the folderbox folder; output starts with [folderbox].',

    isAvailable() {
      return true;
    },

    probe() {
      return { ok: true, detail: `runs in ${process.env.FOLDERBOX_DIR ?? 'HERMES_HOME/folderbox'}` };
    },

    doctorChecks() {
      const dir = process.env.FOLDERBOX_DIR;
      if (!dir) return [{ name: 'folderbox: folder', ok: true, detail: 'HERMES_HOME/folderbox (set FOLDERBOX_DIR to choose another)' }];
      try {
        accessSync(dir, constants.W_OK);
        return [{ name: 'folderbox: folder', ok: true, detail: `${dir} is writable` }];
      } catch {
        return [{ name: 'folderbox: folder', ok: false, detail: `${dir} is missing or not writable`, fix: `mkdir -p ${dir}` }];
      }
    },

    setupInstructions() {
      return 'Folderbox runs commands in FOLDERBOX_DIR (default HERMES_HOME/folderbox). Set FOLDERBOX_DIR in HERMES_HOME/.env to choose the folder.';
    },

    // Takes what it knows and ignores every other option key, as the contract asks.
    createEnvironment({ cwd, timeout, childEnv, hermesHome }) {
      const folder = folderFor({ cwd, hermesHome });
      mkdirSync(folder, { recursive: true });
      const env = typeof childEnv === 'function' ? childEnv : () => ctx.buildChildEnv();
      return new FolderboxEnvironment(new ctx.LocalEnvironment({ cwd: folder, timeout, childEnv: env }));
    },
  });
}
