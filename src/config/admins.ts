/** `approvals.admins`: per platform, the user ids who are the gateway's admins there. */
export type Admins = Readonly<Record<string, readonly string[] | undefined>>;

/**
 * True when `userId` is an admin of `platform`: listed in `approvals.admins.<platform>`. An
 * empty (or absent) list names no admin; being allowed to talk to the bot does not make one.
 * The one rule for who may answer anyone's approval request and who may move a platform's
 * home channel (`/sethome`).
 */
export function isAdmin(admins: Admins | undefined, platform: string, userId: string): boolean {
  return admins?.[platform]?.includes(userId) ?? false;
}
