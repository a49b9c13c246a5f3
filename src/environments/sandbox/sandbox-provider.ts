import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { HermesConfig } from '../../config/schema.js';
import type { HermesPaths } from '../../config/paths.js';
import type { DoctorCheck, ProbeResult, TerminalEnvironmentProvider } from '../provider.js';
import type { CreateEnvironmentOptions, Environment } from '../types.js';
import { hostPythonPrefixes, hostSearchPath } from '../child-env.js';
import { findExecutable } from '../which.js';
import { SandboxEnvironment } from './sandbox-environment.js';
import { BackendError } from '../registry.js';
import { interpreterView } from './interpreter-view.js';
import { resolverPath, systemView, unsafeWorkspace } from './system-view.js';
import { limitsFromConfig } from '../limits.js';
import { describeBytes, limitsCheck } from '../limits-doctor.js';
import { exposesHome, homeLocations, insideHome } from './hermes-home-guard.js';
import { ownFolder, projectIdentity, runningAsRoot, sessionIdentity, type SandboxIdentity } from './sandbox-identity.js';
import { sandboxTools, isolationCheck } from './sandbox-isolation.js';
import { bwrapNamespaceTrial } from './bwrap-probe.js';

const INSTALL_HINT = 'install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora), apk add bubblewrap (Alpine)';

/** A session folder name from a session id (`slack:T1:C1:1700.1` → `slack_T1_C1_1700.1`). */
export function sessionFolderName(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return safe.slice(0, 120) || 'default';
}

/** The `sandbox` backend: bubblewrap on Linux. */
export class SandboxProvider implements TerminalEnvironmentProvider {
  readonly name = 'sandbox';
  readonly displayName = 'Sandbox (bubblewrap)';
  readonly description = 'Run commands on this Linux host inside a bubblewrap sandbox: system read-only, workspace writable, no network by default.';
  // Flags equal to SafeProvider's defaults are not restated: runs on this host, not a container, no cache path, no variables stripped.
  readonly sessionIsolatedWhenNonpersistent = true;
  /** One session's sandbox sees nothing of another's, whatever `container_persistent` says. */
  readonly alwaysSessionIsolated = true;

  constructor(private readonly deps: { config: HermesConfig; paths: HermesPaths }) {}

  get envDescription(): string {
    const net = this.deps.config.terminal.sandbox.network ? 'with network access' : 'without network access';
    return `Commands run in a bubblewrap sandbox on Linux, ${net}: the system is read-only, only the working folder (also ~) and /tmp are writable, nothing else of the host (home folders, /run, /var) is there, and background processes end with the command. The kernel limits each sandbox to ${describeLimits(this.deps.config)}.`;
  }

  isAvailable(): boolean {
    return process.platform === 'linux' && findExecutable('bwrap') !== undefined;
  }

  probe(): ProbeResult {
    if (process.platform !== 'linux') return { ok: false, detail: `needs Linux (this is ${process.platform})` };
    const bwrap = findExecutable('bwrap');
    if (!bwrap) return { ok: false, detail: 'bwrap not found on PATH' };
    const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 1500 });
    return { ok: version.status === 0, detail: version.status === 0 ? `${version.stdout.trim()} at ${bwrap}` : `${bwrap} --version failed` };
  }

  doctorChecks(): DoctorCheck[] {
    if (process.platform !== 'linux') {
      return [{ name: 'sandbox: Linux', ok: false, detail: `this is ${process.platform}`, fix: 'use terminal.backend local, ssh or docker here' }];
    }
    const bwrap = findExecutable('bwrap');
    if (!bwrap) return [{ name: 'sandbox: bubblewrap', ok: false, detail: 'bwrap not found on PATH', fix: INSTALL_HINT }];
    const checks: DoctorCheck[] = [{ name: 'sandbox: bubblewrap', ok: true, detail: bwrap }];
    const trial = bwrapNamespaceTrial(bwrap);
    checks.push(trial.ok
      ? { name: 'sandbox: namespaces', ok: true, detail: 'bwrap can create PID and network namespaces' }
      : {
          name: 'sandbox: namespaces', ok: false, detail: trial.reason,
          fix: 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0), or run where they are allowed',
        });
    checks.push(isolationCheck(bwrap, this.deps.config.terminal.sandbox.uid), limitsCheck('sandbox', this.deps.config));
    return checks;
  }

  setupInstructions(): string {
    return [
      'The sandbox runs each command under bubblewrap (bwrap): the system is read-only, the working folder',
      `(terminal.cwd, or a folder per session under ${this.deps.paths.sandboxes}) and a private /tmp are writable,`,
      'and the network is off unless terminal.sandbox.network is true.',
      this.isAvailable() ? 'bwrap is installed.' : `bwrap is missing: ${INSTALL_HINT}.`,
    ].join('\n');
  }

  postSetup(): void {
    sandboxesFolder(this.deps.paths.sandboxes);
  }

  createEnvironment(options: CreateEnvironmentOptions): Environment {
    const { config, paths } = this.deps;
    const asRoot = runningAsRoot();
    const bwrap = findExecutable('bwrap') ?? 'bwrap';
    // Refuses (throws) when the helpers are missing or, as root, when the drop cannot be shown to hold.
    const tools = sandboxTools(bwrap, asRoot, config.terminal.sandbox.uid);
    const ownWorkspace = !config.terminal.cwd;
    const folderName = sessionFolderName(options.taskId);
    const workspace = config.terminal.cwd ? resolve(config.terminal.cwd) : join(paths.sandboxes, folderName);
    const unsafe = unsafeWorkspace(workspace);
    if (unsafe) {
      throw new BackendError('SANDBOX_WORKSPACE_UNSAFE', `terminal.cwd: ${workspace} cannot be the sandbox's writable workspace: ${unsafe}. Choose a project folder, or leave terminal.cwd empty for a folder per session under ${paths.sandboxes}.`);
    }
    for (const bind of config.terminal.sandbox.extra_ro_binds) {
      const why = exposesHome(resolve(bind), paths.home);
      if (why) throw new BackendError('BACKEND_REFUSED', `terminal.sandbox.extra_ro_binds: ${bind} cannot be shown to the sandbox: ${why}. Bind the folders the commands need, outside HERMES_HOME.`);
    }
    const childEnv: () => Record<string, string> = typeof options.childEnv === 'function' ? (options.childEnv as () => Record<string, string>) : () => ({});
    const hostPath = childEnv().PATH ?? hostSearchPath();
    const settings = config.code_execution;
    const interpreters = interpreterView(
      [settings.python, ...hostPythonPrefixes().map((prefix) => join(prefix, 'bin', 'python'))],
      hostPath,
    );
    for (const prefix of interpreters.readOnly) {
      const why = exposesHome(prefix, paths.home);
      if (why) throw new BackendError('BACKEND_REFUSED', `code_execution.python: its prefix ${prefix} would be shown to the sandbox, but ${why}. Use an interpreter installed outside HERMES_HOME.`);
    }
    let identity: SandboxIdentity | undefined;
    if (ownWorkspace) {
      sandboxesFolder(paths.sandboxes);
      identity = asRoot ? sessionIdentity(config.terminal.sandbox.uid, folderName) : undefined;
      ownFolder(workspace, identity);
    } else {
      mkdirSync(workspace, { recursive: true });
      // A terminal.cwd at or inside HERMES_HOME is hidden whole (an empty folder inside): it is not the sandbox's to write.
      const hidden = insideHome(workspace, paths.home);
      identity = asRoot ? (hidden ? { uid: config.terminal.sandbox.uid, gid: config.terminal.sandbox.uid } : projectIdentity(config.terminal.sandbox.uid, workspace)) : undefined;
    }
    const tmp = mkdtempSync(join(tmpdir(), 'hermes-sandbox-tmp-'));
    ownFolder(tmp, identity);
    const resolver = config.terminal.sandbox.network ? resolverPath() : undefined;
    // Where HERMES_HOME shows through the workspace or a system folder, by disk identity: each is covered by an empty tmpfs.
    const hide = [
      ...(insideHome(workspace, paths.home) && !ownWorkspace ? [workspace] : homeLocations(workspace, paths.home)),
      ...systemView().system.filter((mount) => mount.kind === 'folder').flatMap((mount) => homeLocations(mount.path, paths.home)),
    ];
    return new SandboxEnvironment({
      // Absolute, so a child PATH without /usr/bin cannot lose it.
      bwrap,
      workspace,
      tmp,
      spill: mkdtempSync(join(tmpdir(), 'hermes-sandbox-spill-')),
      network: config.terminal.sandbox.network,
      readOnly: [...interpreters.readOnly, ...config.terminal.sandbox.extra_ro_binds.map((path) => resolve(path)), ...(resolver ? [resolver] : [])],
      hide,
      dropTo: identity,
      tools,
      limits: limitsFromConfig(config),
      scriptTimeout: config.code_execution.timeout,
      timeout: options.timeout,
      childEnv: () => {
        const base = childEnv();
        const path = [...interpreters.pathDirs, base.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(':');
        return { ...base, PATH: path, HOME: workspace, TMPDIR: '/tmp' };
      },
      maxOutputBytes: config.terminal.max_output_bytes,
      graceMs: config.code_execution.kill_grace * 1000,
      removeWorkspace: ownWorkspace && !config.terminal.container_persistent,
    });
  }
}

/**
 * HERMES_HOME/sandboxes: 0711, so the sandboxes' users can pass through to their own folder
 * (0700 each) but nobody can list who else has one.
 */
function sandboxesFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o711 });
  chmodSync(folder, 0o711);
}

/** The limits in a sentence for the model (`envDescription`). */
function describeLimits(config: HermesConfig): string {
  const limits = limitsFromConfig(config);
  const cpu = limits.cpuTime > 0 ? `${limits.cpuTime} s` : "the command's timeout";
  return `${limits.processes} processes, ${describeBytes(limits.memory)} of memory and ${cpu} of CPU per process, files of ${describeBytes(limits.fileSize)} and ${limits.openFiles} open files`;
}
