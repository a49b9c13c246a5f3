import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { WebFiles } from '../../adapters/web/files.js';
import { tempDir } from '../helpers/tool-context.js';

const body = (bytes: Buffer) => Readable.toWeb(Readable.from([bytes])) as ReadableStream<Uint8Array>;

describe('the web chat\'s file store', () => {
  it('takes an upload under a safe name and refuses one over the cap, leaving nothing', async () => {
    const root = tempDir('hermes-web-files-');
    const files = new WebFiles(root);
    const upload = await files.receive(body(Buffer.from('a,b\n')), { name: '../../etc/passwd', mimeType: 'text/csv' }, 100);
    expect(upload).toMatchObject({ name: 'passwd', mimeType: 'text/csv', size: 4 });
    await expect(files.receive(body(Buffer.alloc(101)), { name: 'big.bin', mimeType: 'application/octet-stream' }, 100)).rejects.toMatchObject({ code: 'EFBIG' });
    expect(readdirSync(join(root, 'inbox')).sort()).toEqual([upload.id, `${upload.id}.json`].sort());
  });

  it('an upload whose message never came is removed after a day', async () => {
    const root = tempDir('hermes-web-files-');
    mkdirSync(join(root, 'inbox'));
    const stale = join(root, 'inbox', 'a'.repeat(24));
    writeFileSync(stale, 'left behind');
    const dayAndABitAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    utimesSync(stale, dayAndABitAgo, dayAndABitAgo);
    const files = new WebFiles(root);
    const fresh = await files.receive(body(Buffer.from('new')), { name: 'new.txt', mimeType: 'text/plain' }, 100);
    expect(readdirSync(join(root, 'inbox')).sort()).toEqual([fresh.id, `${fresh.id}.json`].sort());
  });

  it('serves only ids it made: a path in place of an id finds nothing', async () => {
    const root = tempDir('hermes-web-files-');
    const files = new WebFiles(root);
    const kept = await files.keep('t1', { name: 'chart.png', mimeType: 'image/png', open: async () => Readable.from([Buffer.from('png')]) });
    const response = await files.download('t1', kept.id);
    expect(response?.headers.get('content-type')).toBe('image/png');
    expect(response?.headers.get('content-disposition')).toBe(`attachment; filename="chart.png"; filename*=UTF-8''chart.png`);
    expect(await response?.text()).toBe('png');
    expect(await files.download('t1', '../inbox/x')).toBeUndefined();
    expect(await files.download('t2', kept.id)).toBeUndefined();
    expect(await files.attachment('../../t1/x')).toBeUndefined();
  });
});
