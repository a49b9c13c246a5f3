import type { Readable } from 'node:stream';
import type { Environment, CreateEnvironmentOptions, TransferOptions } from './types.js';

/** What `probe()` answers: cheap, no network, for `hermes status` and pickers. */
export interface ProbeResult {
  ok: boolean;
  /** One line: what was found, or what is missing. */
  detail: string;
}

/** One line of `hermes doctor`. */
export interface DoctorCheck {
  /** What was checked (`bubblewrap`, `ACMEBOX_TOKEN`). */
  name: string;
  ok: boolean;
  /** What was found. */
  detail?: string;
  /** What to do when it fails. */
  fix?: string;
  /** False for checks that only inform; a failed required check of the active backend fails doctor. Default true. */
  required?: boolean;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * A terminal backend. The core reads every flag from here instead of keeping lists of
 * names, so adding a backend never means editing the N-th place that checks one.
 * Built-in backends and plugins implement the same interface; every member except `name`
 * and `createEnvironment` is optional and read fail-safe (see ProviderRegistry).
 */
export interface TerminalEnvironmentProvider {
  /** `[a-z0-9_]+`: the value of `terminal.backend`. */
  readonly name: string;
  readonly displayName?: string;
  readonly description?: string;
  /** Commands do not run on this host. */
  readonly isRemote?: boolean;
  /** Container-style paths and working folder. */
  readonly isContainer?: boolean;
  /** Skip the approval step for risky commands (never the floor); defaults to `isContainer`. */
  readonly skipContainerGuards?: boolean;
  /** Where synced cache files land inside the environment, or null. */
  readonly cachePathBase?: string | null;
  /** Variables removed from every child process the gateway starts, whatever backend is active. */
  readonly stripEnvKeys?: readonly string[] | ReadonlySet<string>;
  /** With `terminal.container_persistent: false`, give each session its own environment. */
  readonly sessionIsolatedWhenNonpersistent?: boolean;
  /** Give every session its own environment, whatever `container_persistent` says (a sandbox per session). */
  readonly alwaysSessionIsolated?: boolean;
  /** A sentence for the system prompt: where commands run. */
  readonly envDescription?: string;
  /** Cheap (no network, under 2 s): can this backend be used here? */
  isAvailable?(): MaybePromise<boolean>;
  /** Cheap (no network, under 2 s): a one-line state for `hermes status`. */
  probe?(): MaybePromise<ProbeResult>;
  doctorChecks?(): MaybePromise<DoctorCheck[]>;
  /** Text `hermes setup` prints when the backend is chosen. */
  setupInstructions?(): MaybePromise<string>;
  /** Runs after `hermes setup` chose the backend (create folders, check a login). */
  postSetup?(): MaybePromise<void>;
  /**
   * Moves files in and out of this provider's environments that have no `upload`/`download`
   * of their own (an API of the backend's, say); without it, files move through `execute` in
   * base64 chunks. `remotePath` is absolute as the environment sees it; `source` is already
   * capped at `maxBytes`. Same contract as the environment's members.
   */
  readonly fileTransfer?: {
    upload(environment: Environment, source: Readable, remotePath: string, options: TransferOptions): Promise<void>;
    download(environment: Environment, remotePath: string, options: TransferOptions): Readable | Promise<Readable>;
  };
  /** Must accept and ignore option keys it does not know. */
  createEnvironment(options: CreateEnvironmentOptions): MaybePromise<Environment>;
}
