import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { buffer } from 'node:stream/consumers';
import { expect, it } from 'vitest';
import type { Environment } from '../../src/environments/index.js';
import { downloadFrom, uploadTo } from '../../src/environments/transfer/index.js';
import { tempDir } from '../helpers/tool-context.js';

/*
 * The behaviours every backend's files in and out must show, run against each backend by
 * its own test file (transfer-<backend>.test.ts) through the one front door.
 */

export interface TransferTarget {
  env: Environment;
  /** A folder in the environment, as it sees it, for this file's files. */
  dir: string;
}

/** Binary bytes over 1 MB, every byte value included (NUL, newline, 0xff). */
export function binary(size = 1_500_000): Buffer {
  const data = randomBytes(size);
  for (let value = 0; value < 256; value++) data[value] = value;
  return data;
}

/** What `command` prints, run by the environment's shell; markers keep out what a backend adds around output. */
export async function shellSays(env: Environment, command: string): Promise<string> {
  const result = await env.execute(`printf '<<@'; ${command}; printf '@>>'`);
  const found = /<<@([\s\S]*)@>>/.exec(result.output);
  if (!found) throw new Error(`no marked output from ${JSON.stringify(command)}: ${result.output}`);
  return found[1];
}

/** The names in `dir` as the environment's own shell lists them, hidden ones too, each ended by `|`. */
export function listing(env: Environment, dir: string): Promise<string> {
  return shellSays(env, `cd ${quote(dir)} && for f in * .[!.]*; do [ -e "$f" ] && printf '%s|' "$f"; done; true`);
}

function quote(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

/** Waits until `ready()` holds (checked every 20 ms, 1,500 times at most). */
async function waitFor(ready: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (await ready()) return;
    await sleep(20);
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A stream that gives `first`, then never ends until destroyed; `pulled` settles once the reader asked for more after `first`. */
function hangingStream(first: Buffer): { stream: Readable; pulled: Promise<void> } {
  let sent = false;
  let markPulled: () => void = () => undefined;
  const pulled = new Promise<void>((resolve) => (markPulled = resolve));
  const stream = new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(first);
      } else {
        markPulled();
      }
    },
  });
  return { stream, pulled };
}

/**
 * Registers the common transfer tests; `target()` is read when each test runs (after beforeAll).
 * `bulkTimeoutMs` is for the test that moves 9 MB: a backend that moves files in base64
 * chunks through `execute` takes its time there.
 */
export function transferCases(target: () => TransferTarget, options: { bulkTimeoutMs?: number } = {}): void {
  it('moves the exact bytes of a binary file over 1 MB in and out, from bytes, a host file and a stream', async () => {
    const { env, dir } = target();
    const data = binary();
    const fromBytes = await uploadTo(env, data, `${dir}/round/bytes.bin`);
    expect(fromBytes.bytes).toBe(data.length);
    const hostFile = join(tempDir('hermes-transfer-src-'), 'source.bin');
    writeFileSync(hostFile, data);
    await uploadTo(env, hostFile, `${dir}/round/file.bin`);
    await uploadTo(env, Readable.from([data.subarray(0, 700_000), data.subarray(700_000)]), `${dir}/round/stream.bin`);
    for (const name of ['bytes.bin', 'file.bin', 'stream.bin']) {
      const stream = await downloadFrom(env, `${dir}/round/${name}`);
      expect(stream.path).toBe(`${dir}/round/${name}`);
      expect(stream.size).toBe(data.length);
      expect((await buffer(stream)).equals(data)).toBe(true);
    }
    expect((await shellSays(env, `wc -c < '${dir}/round/stream.bin'`)).trim()).toBe(String(data.length));
    expect(await listing(env, `${dir}/round`)).toBe('bytes.bin|file.bin|stream.bin|');
  }, options.bulkTimeoutMs);

  it('keeps a name with spaces and newlines exactly', async () => {
    const { env, dir } = target();
    const name = 'a b\nc\n.txt';
    await uploadTo(env, Buffer.from('odd name\n'), `${dir}/odd folder/${name}`);
    expect(await listing(env, `${dir}/odd folder`)).toBe(`${name}|`);
    expect((await buffer(await downloadFrom(env, `${dir}/odd folder/${name}`))).toString()).toBe('odd name\n');
  });

  it('refuses an upload over the cap with EFBIG, the size and the cap, before moving bytes or as the stream passes it, and leaves nothing', async () => {
    const { env, dir } = target();
    await env.execute(`mkdir -p '${dir}/cap'`);
    await expect(uploadTo(env, binary(1_200_000), `${dir}/cap/known.bin`, { maxBytes: 1_000_000 })).rejects.toMatchObject({
      code: 'EFBIG', size: 1_200_000, maxBytes: 1_000_000, message: expect.stringContaining('1200000 bytes, over the cap of 1000000 bytes'),
    });
    const stream = Readable.from((function* () {
      for (let i = 0; i < 12; i++) yield binary(100_000);
    })());
    await expect(uploadTo(env, stream, `${dir}/cap/stream.bin`, { maxBytes: 1_000_000 })).rejects.toMatchObject({
      code: 'EFBIG', maxBytes: 1_000_000, message: expect.stringContaining('over the cap of 1000000 bytes'),
    });
    expect(await listing(env, `${dir}/cap`)).toBe('');
    await uploadTo(env, binary(1_000_000), `${dir}/cap/exact.bin`, { maxBytes: 1_000_000 });
    expect(await listing(env, `${dir}/cap`)).toBe('exact.bin|');
  });

  it('refuses a download over the cap with EFBIG, the size and the cap, before the first byte', async () => {
    const { env, dir } = target();
    await uploadTo(env, binary(1_100_000), `${dir}/big.bin`);
    await expect(downloadFrom(env, `${dir}/big.bin`, { maxBytes: 1_000_000 })).rejects.toMatchObject({
      code: 'EFBIG', size: 1_100_000, maxBytes: 1_000_000, message: expect.stringContaining('1100000 bytes, over the cap of 1000000 bytes'),
    });
    expect((await buffer(await downloadFrom(env, `${dir}/big.bin`, { maxBytes: 1_100_000 }))).length).toBe(1_100_000);
  });

  it('says ENOENT for a missing file and EISDIR for a folder, both ways', async () => {
    const { env, dir } = target();
    await env.execute(`mkdir -p '${dir}/folder'`);
    await expect(downloadFrom(env, `${dir}/no-such-file`)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(downloadFrom(env, `${dir}/folder`)).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(uploadTo(env, Buffer.from('x'), `${dir}/folder`)).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await listing(env, `${dir}/folder`)).toBe('');
  });

  it('stops an upload on abort with the reason, leaving neither the file nor a partial one', async () => {
    const { env, dir } = target();
    await env.execute(`mkdir -p '${dir}/abort'`);
    const { stream, pulled } = hangingStream(binary(1_200_000));
    const stop = new AbortController();
    const upload = uploadTo(env, stream, `${dir}/abort/never.bin`, { signal: stop.signal });
    await pulled;
    // Abort mid-transfer: once the far side holds the partial file.
    await waitFor(async () => (await listing(env, `${dir}/abort`)).includes('.hermes-upload-'), 'the partial upload to appear');
    stop.abort('user sent a new message');
    await expect(upload).rejects.toMatchObject({ name: 'AbortError', message: expect.stringContaining('user sent a new message') });
    expect(await listing(env, `${dir}/abort`)).toBe('');
  });

  it('ends a download on abort with an AbortError in the stream', async () => {
    const { env, dir } = target();
    await uploadTo(env, binary(8_000_000), `${dir}/long.bin`);
    const stop = new AbortController();
    const stream = await downloadFrom(env, `${dir}/long.bin`, { signal: stop.signal });
    let got = 0;
    const read = (async () => {
      for await (const chunk of stream) {
        got += Buffer.isBuffer(chunk) ? chunk.length : 0;
        if (!stop.signal.aborted) stop.abort('the session ended');
      }
    })();
    await expect(read).rejects.toMatchObject({ name: 'AbortError', message: expect.stringContaining('the session ended') });
    expect(got).toBeLessThan(8_000_000);
  });
}
