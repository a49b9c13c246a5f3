import { z } from 'zod';
import { openStateDb, Statements, type StateDb, type StateLocation } from '../sessions/index.js';
import { newPairingCode, normalizeCode } from './codes.js';

/** The limits of pairing: how long a code lives, how many wait, how many wrong codes lock approvals. */
export interface PairingLimits {
  codeTtlMs: number;
  /** Codes waiting at once on one platform. */
  maxWaiting: number;
  /** Wrong codes within `failureWindowMs` after which approvals on the platform are refused until the window passes. */
  maxFailures: number;
  failureWindowMs: number;
}

export const PAIRING_LIMITS: PairingLimits = { codeTtlMs: 60 * 60_000, maxWaiting: 3, maxFailures: 5, failureWindowMs: 15 * 60_000 };

export interface PairingRequest {
  platform: string;
  userId: string;
  userName: string;
  code: string;
  createdAt: number;
  expiresAt: number;
}

export interface PairedUser {
  platform: string;
  userId: string;
  userName: string;
  approvedAt: number;
  approvedBy: string;
}

/** A stranger's DM under `dm_policy: pairing`: a new code, the one they already wait with, or none (too many wait). */
export type RequestOutcome =
  | { kind: 'issued'; code: string; expiresAt: number }
  | { kind: 'waiting'; code: string; expiresAt: number }
  | { kind: 'full' };

/** An approval: done, refused (one answer for any wrong code: nothing says which part was wrong), or locked after too many wrong codes. */
export type ApproveOutcome = { kind: 'approved'; userId: string; userName: string } | { kind: 'refused' } | { kind: 'locked'; retryAt: number };

const REQUEST_ROW = z.object({
  platform: z.string(),
  user_id: z.string(),
  user_name: z.string(),
  code: z.string(),
  created_at: z.coerce.number(),
  expires_at: z.coerce.number(),
});
const PAIRED_ROW = z.object({
  platform: z.string(),
  user_id: z.string(),
  user_name: z.string(),
  approved_at: z.coerce.number(),
  approved_by: z.string(),
});
const COUNT_ROW = z.object({ n: z.coerce.number() });
const OLDEST_ROW = z.object({ at: z.coerce.number().nullable() });

export interface PairingStoreOptions {
  /** The clock (tests move it); milliseconds. */
  now?: () => number;
  limits?: Partial<PairingLimits>;
}

/**
 * Pairing codes and approved people, in the state database (SQLite or PostgreSQL), so every
 * instance and the CLI read the same rows and an approval or a revoke applies at the next message.
 */
export class PairingStore {
  private readonly sql: Statements;
  private readonly now: () => number;
  readonly limits: PairingLimits;

  constructor(
    private readonly db: StateDb,
    options: PairingStoreOptions = {},
    private readonly owned = false,
  ) {
    this.sql = new Statements(db);
    this.now = options.now ?? Date.now;
    this.limits = { ...PAIRING_LIMITS, ...options.limits };
  }

  /** A store on its own connection to `location`; `close` ends it. */
  static open(location: StateLocation, options: PairingStoreOptions = {}): PairingStore {
    return new PairingStore(openStateDb(location), options, true);
  }

  /** True when `userId` was approved on `platform` and not revoked since. */
  isPaired(platform: string, userId: string): boolean {
    return this.sql.get<[string, string]>('SELECT 1 AS one FROM paired_users WHERE platform = ? AND user_id = ?').get(platform, userId) !== undefined;
  }

  /** The code for a stranger who wrote: theirs while it lives, a new one when fewer than `maxWaiting` wait. */
  request(platform: string, user: { id: string; name?: string }): RequestOutcome {
    return this.db.transaction(() => {
      const now = this.now();
      this.dropExpired(now);
      const mine = this.waiting(platform).find((request) => request.userId === user.id);
      if (mine) return { kind: 'waiting', code: mine.code, expiresAt: mine.expiresAt };
      if (this.waiting(platform).length >= this.limits.maxWaiting) return { kind: 'full' };
      const taken = new Set(this.waiting(platform).map((request) => request.code));
      let code = newPairingCode();
      while (taken.has(code)) code = newPairingCode();
      const expiresAt = now + this.limits.codeTtlMs;
      this.sql
        .get('INSERT INTO pairing_requests (platform, user_id, user_name, code, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(platform, user.id, user.name ?? '', code, now, expiresAt);
      return { kind: 'issued', code, expiresAt };
    }, 'immediate');
  }

  /**
   * Approves the person waiting with `typed` on `platform`. A wrong code counts; past
   * `maxFailures` in the window every approval there is refused, right codes too, until it passes.
   */
  approve(platform: string, typed: string, by: string): ApproveOutcome {
    return this.db.transaction((): ApproveOutcome => {
      const now = this.now();
      this.dropExpired(now);
      const since = now - this.limits.failureWindowMs;
      const failures = COUNT_ROW.parse(this.sql.get('SELECT COUNT(*) AS n FROM pairing_failures WHERE platform = ? AND at > ?').get(platform, since)).n;
      if (failures >= this.limits.maxFailures) {
        const oldest = OLDEST_ROW.parse(this.sql.get('SELECT MIN(at) AS at FROM pairing_failures WHERE platform = ? AND at > ?').get(platform, since)).at ?? now;
        return { kind: 'locked', retryAt: oldest + this.limits.failureWindowMs };
      }
      const code = normalizeCode(typed);
      const found = this.waiting(platform).find((request) => request.code === code);
      if (!found) {
        this.sql.get('INSERT INTO pairing_failures (platform, at) VALUES (?, ?)').run(platform, now);
        return { kind: 'refused' };
      }
      this.sql.get('DELETE FROM pairing_requests WHERE platform = ? AND user_id = ?').run(platform, found.userId);
      this.sql.get('DELETE FROM paired_users WHERE platform = ? AND user_id = ?').run(platform, found.userId);
      this.sql
        .get('INSERT INTO paired_users (platform, user_id, user_name, approved_at, approved_by) VALUES (?, ?, ?, ?, ?)')
        .run(platform, found.userId, found.userName, now, by);
      return { kind: 'approved', userId: found.userId, userName: found.userName };
    }, 'immediate');
  }

  /** Takes back an approval, or a waiting code, of `who` (a user id or the code); false when there was none. */
  revoke(platform: string, who: string): boolean {
    return this.db.transaction(() => {
      const paired = this.sql.get('DELETE FROM paired_users WHERE platform = ? AND user_id = ?').run(platform, who).changes;
      const waiting = this.sql.get('DELETE FROM pairing_requests WHERE platform = ? AND (user_id = ? OR code = ?)').run(platform, who, normalizeCode(who)).changes;
      return paired + waiting > 0;
    });
  }

  /** Refuses the waiting code of `userId` (the web chat's settings): it is gone, they may ask again later. */
  refuse(platform: string, userId: string): boolean {
    return this.sql.get('DELETE FROM pairing_requests WHERE platform = ? AND user_id = ?').run(platform, userId).changes > 0;
  }

  /** The codes waiting now (all platforms when `platform` is left out), oldest first. */
  pending(platform?: string): PairingRequest[] {
    const now = this.now();
    return this.requests(platform).filter((request) => request.expiresAt > now);
  }

  /** The approved people, oldest approval first. */
  paired(platform?: string): PairedUser[] {
    const rows = platform
      ? this.sql.get('SELECT * FROM paired_users WHERE platform = ? ORDER BY approved_at').all(platform)
      : this.sql.get('SELECT * FROM paired_users ORDER BY platform, approved_at').all();
    return rows.map((row) => PAIRED_ROW.parse(row)).map((row) => ({
      platform: row.platform,
      userId: row.user_id,
      userName: row.user_name,
      approvedAt: row.approved_at,
      approvedBy: row.approved_by,
    }));
  }

  close(): void {
    if (this.owned) this.db.close();
  }

  private waiting(platform: string): PairingRequest[] {
    return this.pending(platform);
  }

  private requests(platform?: string): PairingRequest[] {
    const rows = platform
      ? this.sql.get('SELECT * FROM pairing_requests WHERE platform = ? ORDER BY created_at').all(platform)
      : this.sql.get('SELECT * FROM pairing_requests ORDER BY platform, created_at').all();
    return rows.map((row) => REQUEST_ROW.parse(row)).map((row) => ({
      platform: row.platform,
      userId: row.user_id,
      userName: row.user_name,
      code: row.code,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    }));
  }

  /** Expired codes and tries older than the window are no use to anyone. */
  private dropExpired(now: number): void {
    this.sql.get('DELETE FROM pairing_requests WHERE expires_at <= ?').run(now);
    this.sql.get('DELETE FROM pairing_failures WHERE at <= ?').run(now - this.limits.failureWindowMs);
  }
}
