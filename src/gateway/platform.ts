import type { HermesConfig } from '../config/index.js';
import type { PlatformAdapter, ThreadRef } from './types.js';

/** What the platform said about a token: who the bot is, and whose id to allow (when it can tell). */
export interface TokenCheck {
  ok: boolean;
  /** The bot as the platform names it (`@hermes_bot`, `hermes in Acme`), or why the token was refused. */
  detail: string;
  /** The person to allow, when the platform tells (the last sender, the application's owner). */
  person?: { id: string; name: string };
  /** What works but limits the bot (doctor shows each as a warning), such as a privacy mode that hides group messages. */
  warnings?: string[];
}

/** Tokens by variable name, as setup typed them or the environment has them. */
export type Tokens = Readonly<Record<string, string>>;

/** One `hermes setup` flag: `flag` (`--x-token <token>`) puts its value in the variable `env`. */
export interface SetupTokenFlag {
  readonly flag: string;
  readonly env: string;
  readonly description: string;
}

/**
 * The flags `hermes setup` takes for one platform: its tokens, and the allow-list flag
 * (repeatable). Kept free of the platform's SDK, so the CLI can declare them without loading it.
 */
export interface PlatformSetupFlags {
  readonly platform: string;
  readonly tokens: readonly SetupTokenFlag[];
  readonly user: { readonly flag: string; readonly description: string };
}

/**
 * How `hermes setup` and `hermes doctor` take a chat platform that needs tokens: which ones, where
 * they are found, how the platform checks them, and how the person to allow is found.
 */
export interface PlatformSetup {
  /** The name people read, as setup's heading shows it. */
  readonly label: string;
  /** Its `hermes setup` flags (`adapters/<platform>/setup-flags.ts`). */
  readonly flags: PlatformSetupFlags;
  /** The token variables, in the order setup asks them (they may follow the config: a mode). */
  tokenNames(config: HermesConfig): string[];
  /** Where each token is found, by variable. */
  readonly tokenHelp: Readonly<Record<string, string>>;
  /** How a person finds their own id when the platform cannot tell. */
  readonly ownIdHelp: string;
  /** Who the platform's `person` is, as setup offers them (`who wrote last`). */
  readonly personRole: string;
  /** Why the platform named nobody, for `--<platform>-user auto`. */
  readonly noPerson: string;
  /**
   * Asks the platform whether the tokens work. `findPerson` also looks for the person to allow
   * (doctor leaves it out where that would disturb a running gateway).
   */
  checkTokens(tokens: Tokens, config: HermesConfig, findPerson: boolean): Promise<TokenCheck>;
  /** A platform that learns the person from a message they send the bot: what to ask, and the second look. */
  readonly askForPerson?: { prompt(check: TokenCheck): string; find(tokens: Tokens, config: HermesConfig): Promise<TokenCheck['person']> };
}

/**
 * One chat platform as one module (`adapters/<platform>/platform.ts`): its name, its thread
 * identity, how its adapter is made, and, for a platform with tokens, its setup. The registry
 * (`adapters/index.ts`) lists them; the CLI and the gateway iterate it, and nothing under
 * `src/` names a platform or imports its SDK.
 */
/** Whether a platform has what it needs to start, as doctor and status show it. */
export interface PlatformReadiness {
  enabled: boolean;
  ready: boolean;
  /** What it needs (not ready) or how it will run (ready). */
  detail: string;
  /** How to make it ready, where not being ready is a failure (the web chat on an open address); else only info. */
  fix?: string;
}

export interface Platform<CreateOptions> {
  readonly name: string;
  readonly thread: ThreadRef;
  /** From the config and the settings' environment, without asking the platform. */
  readiness(config: HermesConfig, env: Readonly<Record<string, string | undefined>>): PlatformReadiness;
  /** The adapter, when the platform is enabled and has its tokens; else undefined. */
  create(options: CreateOptions): PlatformAdapter | undefined;
  /** Absent for a platform without tokens (the local web chat). */
  readonly setup?: PlatformSetup;
}
