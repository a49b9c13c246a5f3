import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebFiles } from '../../adapters/web/files.js';

describe('web uploads reopened from a ref another instance passed', () => {
  let dir: string;
  let files: WebFiles;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hermes-web-passed-'));
    files = new WebFiles(join(dir, 'files'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('an upload in the shared inbox is reopened by its ref, with its bytes', async () => {
    const upload = await files.receive(Readable.from([Buffer.from('shared bytes')]), { name: 'a.txt', mimeType: 'text/plain' }, 1024);
    const first = await files.attachment(upload.id);
    expect(first?.ref).toEqual({ platform: 'web', upload: upload.id });
    const reopened = await files.reopen(JSON.parse(JSON.stringify(first?.ref)));
    expect(reopened).toMatchObject({ name: 'a.txt', mimeType: 'text/plain', size: 12 });
    expect(await text(await reopened!.open(new AbortController().signal))).toBe('shared bytes');
  });

  it('refuses a ref that walks out of the inbox (../, a path, a symlink to a file outside) or has the wrong shape', async () => {
    const upload = await files.receive(Readable.from([Buffer.from('x')]), { name: 'a.txt', mimeType: 'text/plain' }, 1024);
    // A secret outside the inbox, and a symlink in the inbox that points at it.
    const secret = join(dir, 'secret');
    writeFileSync(secret, 'secret bytes');
    writeFileSync(`${secret}.json`, JSON.stringify({ name: 's', mimeType: 'text/plain', size: 12 }));
    const linked = 'ab'.repeat(12);
    mkdirSync(join(dir, 'files', 'inbox'), { recursive: true });
    symlinkSync(secret, join(dir, 'files', 'inbox', linked));
    symlinkSync(`${secret}.json`, join(dir, 'files', 'inbox', `${linked}.json`));
    const refs: unknown[] = [
      { platform: 'web', upload: '../secret' },
      { platform: 'web', upload: `../inbox/${upload.id}` },
      { platform: 'web', upload: secret },
      { platform: 'web', upload: linked },
      { platform: 'web', upload: upload.id, path: '/etc/passwd' },
      { platform: 'telegram', fileId: upload.id },
      upload.id,
      null,
    ];
    for (const ref of refs) expect(await files.reopen(ref), JSON.stringify(ref)).toBeUndefined();
    // The genuine one still opens: the refusals are the refs', not the inbox's.
    expect(await files.reopen({ platform: 'web', upload: upload.id })).toBeDefined();
  });
});
