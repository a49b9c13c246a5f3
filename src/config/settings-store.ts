import type { Settings, SettingsEnv } from './settings.js';
import type { HermesConfig } from './schema.js';

/** What a reload changed: keys (and `.env` variables) applied now, and those that need a restart. */
export interface ConfigChange {
  applied: string[];
  needsRestart: string[];
}

/** Told of each new snapshot, with the one it replaced and what changed. */
export type SettingsListener = (next: Settings, previous: Settings, change: ConfigChange) => void;

/** The running settings: one snapshot at a time, replaced whole by a reload. */
export interface LiveSettings {
  current(): Settings;
  /** Calls `listener` after each swap; returns the function that stops it. */
  subscribe(listener: SettingsListener): () => void;
}

/**
 * Holds the running snapshot. `swap` replaces it (never changes it) and tells the
 * subscribers; a subscriber that throws does not keep the others from hearing of it.
 */
export class SettingsStore implements LiveSettings {
  private snapshot: Settings;
  private readonly listeners = new Set<SettingsListener>();

  constructor(initial: Settings) {
    this.snapshot = initial;
  }

  current(): Settings {
    return this.snapshot;
  }

  subscribe(listener: SettingsListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  swap(next: Settings, change: ConfigChange): void {
    const previous = this.snapshot;
    this.snapshot = next;
    const failures: unknown[] = [];
    for (const listener of [...this.listeners]) {
      try {
        listener(next, previous, change);
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, 'a settings subscriber failed');
  }
}

type Plain = Record<PropertyKey, unknown>;
const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A read-only view that resolves every read against `root()` at the moment of reading: a
 * holder of the view (or of a section taken from it, `config.model`) sees the snapshot that
 * is current then. Writes fail (TypeError in strict code): a change is a new snapshot.
 */
function readThrough<T extends object>(root: () => T): T {
  const at = (key: PropertyKey): unknown => Reflect.get(root(), key);
  return new Proxy({} as T, {
    get: (_target, key) => (isPlain(at(key)) ? readThrough(() => at(key) as object) : at(key)),
    has: (_target, key) => Reflect.has(root(), key),
    ownKeys: () => Reflect.ownKeys(root()),
    getOwnPropertyDescriptor: (_target, key) => {
      const found = Reflect.getOwnPropertyDescriptor(root(), key);
      return found && { value: at(key), enumerable: found.enumerable, writable: false, configurable: true };
    },
    set: () => false,
    deleteProperty: () => false,
    defineProperty: () => false,
  });
}

/**
 * The running configuration as one object for code that holds a config (the gateway, the
 * agent, the adapters): each read sees the current snapshot, so hot keys apply at once.
 */
export function liveConfig(settings: LiveSettings): HermesConfig {
  return readThrough(() => settings.current().config);
}

/** The running environment (the current snapshot's variables), read at each use. */
export function liveEnv(settings: LiveSettings): SettingsEnv {
  return readThrough(() => settings.current().env);
}
