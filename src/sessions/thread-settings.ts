import type { Logger } from '../shared/logger.js';
import type { Statements } from './statements.js';
import type { ThreadSettings } from './types.js';

const PROGRESS = new Set(['off', 'new', 'all']);

/** Settings a thread keeps across its sessions (the `thread_settings` table). */
export class ThreadSettingsTable {
  constructor(
    private readonly sql: Statements,
    private readonly logger: Logger,
  ) {}

  get(key: string): ThreadSettings {
    const row = this.sql.get<[string], { settings: string }>('SELECT settings FROM thread_settings WHERE key = ?').get(key);
    if (!row) return {};
    try {
      const value = JSON.parse(row.settings) as Record<string, unknown>;
      const settings: ThreadSettings = {};
      if (typeof value.model === 'string' && value.model) settings.model = value.model;
      if (typeof value.toolProgress === 'string' && PROGRESS.has(value.toolProgress)) settings.toolProgress = value.toolProgress as ThreadSettings['toolProgress'];
      if (value.voice === 'on' || value.voice === 'only') settings.voice = value.voice;
      return settings;
    } catch {
      this.logger.warn({ thread: key }, 'state.db: unreadable thread settings ignored');
      return {};
    }
  }

  /** Lays `patch` over the thread's settings (`undefined` removes a setting); returns the result. */
  update(key: string, patch: Partial<Record<keyof ThreadSettings, string | undefined>>): ThreadSettings {
    const next: Record<string, unknown> = { ...this.get(key) };
    for (const [name, value] of Object.entries(patch)) {
      if (value === undefined) delete next[name];
      else next[name] = value;
    }
    this.sql
      .get('INSERT INTO thread_settings (key, settings, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at')
      .run(key, JSON.stringify(next), Date.now());
    return this.get(key);
  }
}
