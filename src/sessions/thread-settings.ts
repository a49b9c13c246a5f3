import { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import type { Statements } from './statements.js';
import type { ThreadSettings } from './types.js';

const settingsRow = z.object({ settings: z.string() });

/** The stored settings: a setting this version does not understand is dropped alone, the others kept. */
const storedSettings = z.object({
  model: z.string().min(1).optional().catch(undefined),
  toolProgress: z.enum(['off', 'new', 'all']).optional().catch(undefined),
  voice: z.enum(['on', 'only']).optional().catch(undefined),
});

/** Settings a thread keeps across its sessions (the `thread_settings` table). */
export class ThreadSettingsTable {
  constructor(
    private readonly sql: Statements,
    private readonly logger: Logger,
  ) {}

  get(key: string): ThreadSettings {
    const row = this.sql.get<[string]>('SELECT settings FROM thread_settings WHERE key = ?').get(key);
    if (row === undefined) return {};
    let stored: z.infer<typeof storedSettings>;
    try {
      stored = storedSettings.parse(JSON.parse(settingsRow.parse(row).settings));
    } catch {
      this.logger.warn({ thread: key }, 'state.db: unreadable thread settings ignored');
      return {};
    }
    // Only the settings present, so an absent one is no key at all.
    const settings: ThreadSettings = {};
    if (stored.model !== undefined) settings.model = stored.model;
    if (stored.toolProgress !== undefined) settings.toolProgress = stored.toolProgress;
    if (stored.voice !== undefined) settings.voice = stored.voice;
    return settings;
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
