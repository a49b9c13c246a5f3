import { describe, expect, it } from 'vitest';
import { reopenTelegramAttachment, type TelegramFileSource } from '../../adapters/telegram/files.js';
import { passableAttachments, reopenPassedAttachments } from '../../src/gateway/passed-attachments.js';
import type { AttachmentDescription, InboundAttachment, PlatformAdapter } from '../../src/gateway/types.js';
import { KEY_ONLY_THREAD_REF } from '../../src/gateway/thread-ref.js';
import { silentLogger } from '../../src/shared/logger.js';

/** getFile records the ids it was asked for: a refused ref must never reach it. */
function telegramAdapter(asked: string[]): PlatformAdapter {
  const getFile = async (fileId: string) => {
    asked.push(fileId);
    return { file_id: fileId, file_unique_id: 'u', file_path: 'documents/x.txt' };
  };
  const source: TelegramFileSource = { api: { getFile }, token: '1:t', root: () => 'http://127.0.0.1:9' };
  return {
    name: 'telegram',
    maxMessageLength: 4096,
    thread: KEY_ONLY_THREAD_REF,
    start: async () => {},
    stop: async () => {},
    send: async () => ({ messageId: '1' }),
    files: { reopen: async (ref: unknown, described: AttachmentDescription) => reopenTelegramAttachment(ref, described, source) },
  };
}

describe('files passed from another instance', () => {
  it('travel as plain data that survives JSON, with their refs', () => {
    const attachment: InboundAttachment = { name: 'a.txt', kind: 'document', size: 3, mimeType: 'text/plain', ref: { platform: 'telegram', fileId: 'BQAC_x-1' }, open: async () => { throw new Error('not opened'); } };
    expect(JSON.parse(JSON.stringify(passableAttachments([attachment])))).toEqual([{ name: 'a.txt', kind: 'document', size: 3, mimeType: 'text/plain', ref: { platform: 'telegram', fileId: 'BQAC_x-1' } }]);
  });

  it('are reopened through the adapter from a plain Telegram file id', async () => {
    const asked: string[] = [];
    const reopened = await reopenPassedAttachments([{ name: 'a.txt', kind: 'document', size: 3, ref: { platform: 'telegram', fileId: 'BQAC_x-1' } }], telegramAdapter(asked), silentLogger());
    expect(reopened.refusals).toEqual([]);
    expect(reopened.attachments.map(({ name, kind, size, ref }) => ({ name, kind, size, ref }))).toEqual([{ name: 'a.txt', kind: 'document', size: 3, ref: { platform: 'telegram', fileId: 'BQAC_x-1' } }]);
  });

  it('refuse a ref that walks out (../), has the wrong shape or names another platform, each with a note to the person', async () => {
    const asked: string[] = [];
    const refs = [
      { platform: 'telegram', fileId: '../../etc/passwd' },
      { platform: 'telegram', fileId: 'abc/../../x' },
      { platform: 'telegram', fileId: 'ok', extra: 1 },
      { platform: 'telegram', fileId: 7 },
      { platform: 'web', upload: '../inbox/0123456789abcdef01234567' },
      'BQAC',
      null,
    ];
    const passed = [...refs.map((ref, i) => ({ name: `f${i}.txt`, ref })), { name: 'no-ref.txt' }];
    const reopened = await reopenPassedAttachments(passed, telegramAdapter(asked), silentLogger());
    expect(reopened.attachments).toEqual([]);
    expect(reopened.refusals).toHaveLength(passed.length);
    expect(reopened.refusals[0]).toContain('"f0.txt"');
  });

  it('keep only a description of the right shape (the safe-name logic and limits run on it later)', async () => {
    const reopened = await reopenPassedAttachments([{ name: 42, kind: 'rootkit', size: -1, mimeType: 'text/plain', ref: { platform: 'telegram', fileId: 'id1' } }], telegramAdapter([]), silentLogger());
    const [attachment] = reopened.attachments;
    expect({ name: attachment.name, kind: attachment.kind, size: attachment.size, mimeType: attachment.mimeType }).toEqual({ name: undefined, kind: undefined, size: undefined, mimeType: 'text/plain' });
  });
});
