import type { HermesConfig } from './schema.js';
import { isChatSection } from './platform-keys.js';

/** Per platform, the user ids who are the gateway's admins there. */
export type Admins = Readonly<Record<string, readonly string[] | undefined>>;

/**
 * True when `userId` is a listed admin of `platform` in `admins`. An empty (or absent) list
 * names no admin; being allowed to talk to the bot does not make one. The rule for who may
 * answer anyone's approval request and move a platform's home channel (`/sethome`).
 */
export function isAdmin(admins: Admins | undefined, platform: string, userId: string): boolean {
  return admins?.[platform]?.includes(userId) ?? false;
}

/**
 * The listed admins of every platform: `platforms.<name>.admins` together with the older
 * `approvals.admins.<name>`, which is still read. The one place both keys are read.
 */
export function listedAdmins(config: HermesConfig): Readonly<Record<string, readonly string[]>> {
  const merged: Record<string, string[]> = {};
  for (const [platform, list] of Object.entries(config.approvals.admins)) merged[platform] = [...list];
  for (const [platform, section] of Object.entries(config.platforms)) {
    const list = isChatSection(section) ? section.admins : [];
    merged[platform] = [...new Set([...(merged[platform] ?? []), ...list])];
  }
  return merged;
}

/** What a person is on a platform: `admin` or `user` (/whoami, and the gate of the admin commands). */
export type Role = 'admin' | 'user';

/**
 * The role of `userId` on `platform` for the admin commands (/model <name>, /reload-mcp,
 * /sethome, /pair): a listed admin is an admin; where the platform lists none, whoever the
 * allow-list lets in (`allowListed`) is, as before admins existed. Paired people and strangers
 * under `dm_policy: open` are users.
 */
export function roleOf(config: HermesConfig, platform: string, userId: string, allowListed: boolean): Role {
  const listed = listedAdmins(config)[platform] ?? [];
  if (listed.length > 0) return listed.includes(userId) ? 'admin' : 'user';
  return allowListed ? 'admin' : 'user';
}

/** Platforms that others reach whose admin list is empty (doctor says so: their allow-listed users are admins). */
export function platformsWithoutAdmins(config: HermesConfig): string[] {
  const listed = listedAdmins(config);
  return Object.entries(config.platforms)
    .filter(([, section]) => isChatSection(section) && section.enabled)
    .map(([platform]) => platform)
    .filter((platform) => (listed[platform] ?? []).length === 0);
}
