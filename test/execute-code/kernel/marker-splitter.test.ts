import { describe, expect, it } from 'vitest';
import { MarkerSplitter } from '../../../src/execute-code/kernel/marker-splitter.js';

const marker = Buffer.from('\0hermes-cell-end:0123456789abcdef0123456789abcdef\0', 'latin1');

function split(chunks: (string | Buffer)[]) {
  const splitter = new MarkerSplitter();
  const out: Buffer[] = [];
  splitter.start(marker, (chunk) => out.push(Buffer.from(chunk)));
  for (const chunk of chunks) splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'latin1'));
  return { splitter, text: Buffer.concat(out).toString('latin1') };
}

describe('MarkerSplitter', () => {
  it('delivers the bytes before the marker and drops what follows it', () => {
    const { splitter, text } = split(['hello\n', Buffer.concat([Buffer.from('wor'), marker, Buffer.from('late')])]);
    expect(text).toBe('hello\nwor');
    expect(splitter.done).toBe(true);
    expect(splitter.dropped).toBe(4);
  });

  it('finds a marker split over many chunks, byte by byte', () => {
    const data = Buffer.concat([Buffer.from('abc'), marker]);
    const { splitter, text } = split([...data].map((byte) => Buffer.from([byte])));
    expect(text).toBe('abc');
    expect(splitter.done).toBe(true);
  });

  it('passes through a prefix of the marker that turns out not to be one, and a fake marker', () => {
    const fake = '\0hermes-cell-end:ffffffffffffffffffffffffffffffff\0';
    const { splitter, text } = split(['x\0hermes-cell-e', 'nd:0123', 'zz\n', fake, 'end']);
    expect(text).toBe('x\0hermes-cell-end:0123zz\n' + fake + 'end');
    expect(splitter.done).toBe(false);
  });

  it('hands over held-back bytes when the cell ends without a marker', () => {
    const { splitter, text } = split(['out\0hermes']);
    expect(text).toBe('out');
    const rest: string[] = [];
    splitter.start(marker, (chunk) => rest.push(chunk.toString('latin1')));
    splitter.push(Buffer.from('\0herm', 'latin1'));
    splitter.finish();
    expect(rest.join('')).toBe('\0herm');
  });

  it('drops output while no cell is listening', () => {
    const splitter = new MarkerSplitter();
    splitter.push(Buffer.from('stray'));
    expect(splitter.dropped).toBe(5);
  });
});
