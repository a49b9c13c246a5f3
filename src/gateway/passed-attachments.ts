import type { Logger } from '../shared/logger.js';
import type { AttachmentDescription, InboundAttachment, PassedAttachment, PlatformAdapter } from './types.js';

const KINDS = new Set<InboundAttachment['kind']>(['photo', 'document', 'audio', 'voice', 'video', 'file']);
/** Longest name or MIME type kept from another instance's description (the gateway's safe-name logic does the rest). */
const TEXT_MAX = 1024;

/** A message's files as plain data for another instance: what they are and where to fetch them again. */
export function passableAttachments(attachments: readonly InboundAttachment[]): PassedAttachment[] {
  return attachments.map(({ name, mimeType, size, kind, ref }) => ({
    ...(name !== undefined ? { name } : {}),
    ...(mimeType !== undefined ? { mimeType } : {}),
    ...(size !== undefined ? { size } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(ref !== undefined ? { ref } : {}),
  }));
}

/** What came of the files another instance passed: the ones reopened here, and one sentence per file that stayed behind. */
export interface Reopened {
  attachments: InboundAttachment[];
  refusals: string[];
}

/**
 * Rebuilds the files of a message another instance passed through this instance's adapter for
 * the platform. Everything in `passed` is untrusted: a description is kept only where it has the
 * right shape, and a file whose ref the adapter does not vouch for is dropped (logged, and told).
 */
export async function reopenPassedAttachments(passed: unknown, adapter: PlatformAdapter, logger: Logger): Promise<Reopened> {
  const reopened: Reopened = { attachments: [], refusals: [] };
  if (!Array.isArray(passed)) return reopened;
  for (const item of passed as unknown[]) {
    const described = describe(item);
    const ref = typeof item === 'object' && item !== null ? (item as { ref?: unknown }).ref : undefined;
    const shown = described.name ? `"${described.name.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').slice(0, 80)}"` : `The ${described.kind ?? 'file'}`;
    let attachment: InboundAttachment | undefined;
    try {
      const reopen = adapter.files?.reopen;
      attachment = ref === undefined || !reopen ? undefined : await reopen.call(adapter.files, ref, described);
    } catch (error) {
      logger.warn({ err: error, platform: adapter.name }, 'could not reopen a file passed from another instance');
    }
    if (attachment) {
      reopened.attachments.push(attachment);
      continue;
    }
    logger.warn({ platform: adapter.name, hasRef: ref !== undefined }, 'a file passed from another instance was dropped: its reference is missing or not one this instance can open');
    reopened.refusals.push(`${shown} reached another instance of the gateway, which could not fetch it, so it was not saved; send it again.`);
  }
  return reopened;
}

/** The parts of an untrusted description that have the right shape. */
function describe(item: unknown): AttachmentDescription {
  if (typeof item !== 'object' || item === null) return {};
  const { name, mimeType, size, kind } = item as Record<string, unknown>;
  return {
    ...(typeof name === 'string' && name.length <= TEXT_MAX ? { name } : {}),
    ...(typeof mimeType === 'string' && mimeType.length <= TEXT_MAX ? { mimeType } : {}),
    ...(typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? { size } : {}),
    ...(typeof kind === 'string' && KINDS.has(kind as InboundAttachment['kind']) ? { kind: kind as InboundAttachment['kind'] } : {}),
  };
}
