import type { Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import type { Environment, CreateEnvironmentOptions } from './types.js';
import type { DoctorCheck, ProbeResult, TerminalEnvironmentProvider } from './provider.js';

/** How long `isAvailable()` and `probe()` may take before the core stops waiting. */
const PROBE_LIMIT_MS = 2000;

/**
 * A provider as the core sees it: every property and method read fail-safe. When a
 * provider's member throws (or answers with the wrong type), the safe value is used and
 * the failure is logged at debug level. Safe means: approvals stay on, sessions never
 * share an environment, the backend counts as unavailable.
 */
export class SafeProvider {
  constructor(
    /** The provider object as registered. */
    readonly raw: TerminalEnvironmentProvider,
    /** The normalised (lower-case) backend name. */
    readonly name: string,
    /** `builtin`, or the name of the plugin that registered it. */
    readonly source: string,
    private readonly logger: Logger,
  ) {}

  get builtin(): boolean {
    return this.source === 'builtin';
  }

  get displayName(): string {
    return this.read('displayName', (v) => typeof v === 'string' && v !== '', this.name);
  }

  get description(): string {
    return this.read('description', (v) => typeof v === 'string', '');
  }

  get isRemote(): boolean {
    return this.read('isRemote', isBool, false);
  }

  get isContainer(): boolean {
    return this.read('isContainer', isBool, false);
  }

  /** Defaults to `isContainer`; a throwing or malformed value keeps approvals on. */
  get skipContainerGuards(): boolean {
    const value = this.read<boolean | undefined>('skipContainerGuards', (v) => v === undefined || isBool(v), false);
    return value === undefined ? this.isContainer : value;
  }

  get cachePathBase(): string | null {
    return this.read('cachePathBase', (v) => v === null || typeof v === 'string', null, null);
  }

  get stripEnvKeys(): string[] {
    const value = this.read<unknown>('stripEnvKeys', (v) => Array.isArray(v) || v instanceof Set, [], []);
    return [...(value as Iterable<unknown>)].filter((key): key is string => typeof key === 'string' && key !== '');
  }

  /** A throwing value isolates: two sessions never share (or delete) each other's sandbox. */
  get sessionIsolatedWhenNonpersistent(): boolean {
    const value = this.read<boolean | undefined>('sessionIsolatedWhenNonpersistent', (v) => v === undefined || isBool(v), true);
    return value ?? false;
  }

  /** Every session gets an environment of its own, persistent or not (the sandbox). A throwing value isolates. */
  get alwaysSessionIsolated(): boolean {
    const value = this.read<boolean | undefined>('alwaysSessionIsolated', (v) => v === undefined || isBool(v), true);
    return value ?? false;
  }

  get envDescription(): string {
    return this.read('envDescription', (v) => typeof v === 'string', '');
  }

  /** False when the method is missing an answer, throws or takes longer than 2 s. Present and silent means true. */
  async isAvailable(): Promise<boolean> {
    const value = await this.call('isAvailable', [], true, PROBE_LIMIT_MS, false);
    return value === true;
  }

  /** The provider's probe; without one, what isAvailable() says. */
  async probe(): Promise<ProbeResult> {
    const value = await this.call<unknown>('probe', [], undefined, PROBE_LIMIT_MS, { ok: false, detail: 'probe failed' });
    if (value === undefined) {
      const available = await this.isAvailable();
      return { ok: available, detail: available ? 'available' : 'not available' };
    }
    if (isProbe(value)) return value;
    this.logger.debug({ backend: this.name }, `backend ${this.name}: probe() answered something that is not {ok, detail}`);
    return { ok: false, detail: 'probe answered something unreadable' };
  }

  async doctorChecks(): Promise<DoctorCheck[]> {
    const failed = (detail: string): DoctorCheck[] => [
      { name: `${this.name}: doctorChecks`, ok: false, detail, fix: `report it to the author of the ${this.source === 'builtin' ? 'backend' : `plugin ${this.source}`}` },
    ];
    const value = await this.call<unknown>('doctorChecks', [], [], undefined, failed('doctorChecks() threw'));
    if (!Array.isArray(value)) return failed('doctorChecks() did not answer a list');
    return value.filter(isCheck);
  }

  async setupInstructions(): Promise<string> {
    const value = await this.call<unknown>('setupInstructions', [], '', undefined, '');
    return typeof value === 'string' ? value : '';
  }

  /** Unlike the reads, a failing postSetup is reported to the caller (setup says so). */
  async postSetup(): Promise<void> {
    const method = this.raw.postSetup;
    if (typeof method === 'function') await method.call(this.raw);
  }

  /** Errors propagate: there is no safe environment to fall back to. */
  async createEnvironment(options: CreateEnvironmentOptions): Promise<Environment> {
    return await this.raw.createEnvironment(options);
  }

  private read<T>(key: keyof TerminalEnvironmentProvider, valid: (value: unknown) => boolean, onError: T, onMissing?: T): T {
    let value: unknown;
    try {
      value = this.raw[key];
    } catch (error) {
      this.logger.debug({ backend: this.name, err: errorMessage(error) }, `backend ${this.name}: reading ${String(key)} threw; using the safe default`);
      return onError;
    }
    if (value === undefined && onMissing !== undefined) return onMissing;
    if (!valid(value)) {
      this.logger.debug({ backend: this.name }, `backend ${this.name}: ${String(key)} has the wrong type; using the safe default`);
      return onError;
    }
    return value as T;
  }

  private async call<T>(key: keyof TerminalEnvironmentProvider, args: unknown[], missing: T, limitMs: number | undefined, onError: T): Promise<T> {
    let method: unknown;
    try {
      method = this.raw[key];
    } catch (error) {
      this.logger.debug({ backend: this.name, err: errorMessage(error) }, `backend ${this.name}: reading ${String(key)} threw`);
      return onError;
    }
    if (typeof method !== 'function') return missing;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = Promise.resolve((method as (...a: unknown[]) => unknown).apply(this.raw, args));
      const limited = limitMs === undefined
        ? answer
        : Promise.race([answer, new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`took longer than ${limitMs} ms`)), limitMs);
          })]);
      return (await limited) as T;
    } catch (error) {
      this.logger.debug({ backend: this.name, err: errorMessage(error) }, `backend ${this.name}: ${String(key)}() failed; using the safe default`);
      return onError;
    } finally {
      clearTimeout(timer);
    }
  }
}

const isBool = (value: unknown): value is boolean => typeof value === 'boolean';

function isProbe(value: unknown): value is ProbeResult {
  return typeof value === 'object' && value !== null && typeof (value as ProbeResult).ok === 'boolean' &&
    typeof (value as ProbeResult).detail === 'string';
}

function isCheck(value: unknown): value is DoctorCheck {
  return typeof value === 'object' && value !== null && typeof (value as DoctorCheck).name === 'string' &&
    typeof (value as DoctorCheck).ok === 'boolean';
}
