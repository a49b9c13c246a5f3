import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJson } from '../../src/shared/read-json.js';

describe('readJson', () => {
  const point = z.object({ x: z.number(), y: z.number() });

  it('gives the value when the text is JSON of the shape', () => {
    expect(readJson(point, '{"x":1,"y":2}')).toEqual({ x: 1, y: 2 });
  });

  it('gives undefined for text that is not JSON, or JSON of another shape', () => {
    for (const text of ['', 'not json', '{"x":1', 'null', '[1,2]', '{"x":"1","y":2}', '{"x":1}']) expect(readJson(point, text)).toBeUndefined();
  });
});
