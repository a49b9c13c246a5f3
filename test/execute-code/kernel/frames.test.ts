import { describe, expect, it } from 'vitest';
import { FrameReader, encodeFrame, type Frame } from '../../../src/execute-code/kernel/frames.js';

function reader(max = 1024) {
  const frames: Frame[] = [];
  const errors: string[] = [];
  const r = new FrameReader(max, (frame) => frames.push(frame), (why) => errors.push(why));
  return { r, frames, errors };
}

describe('control frames', () => {
  it('encodes length, kind and payload and reads them back across arbitrary chunk boundaries', () => {
    const data = Buffer.concat([encodeFrame('O'), encodeFrame('E', Buffer.from('trace')), encodeFrame('X', Buffer.from('i'), Buffer.from('3'))]);
    const { r, frames, errors } = reader();
    for (const byte of data) r.push(Buffer.from([byte]));
    expect(errors).toEqual([]);
    expect(frames.map((f) => [f.kind, f.payload.toString()])).toEqual([
      ['O', ''],
      ['E', 'trace'],
      ['X', 'i3'],
    ]);
  });

  it('rejects a frame over the cap without buffering it, and reads nothing after', () => {
    const { r, frames, errors } = reader(16);
    r.push(encodeFrame('E', Buffer.alloc(100)));
    r.push(encodeFrame('O'));
    expect(frames).toEqual([]);
    expect(errors).toEqual(['control frame of 101 bytes (limit 16)']);
  });

  it('rejects an empty frame', () => {
    const { r, errors } = reader();
    r.push(Buffer.from([0, 0, 0, 0]));
    expect(errors).toHaveLength(1);
  });
});
