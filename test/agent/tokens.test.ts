import { describe, expect, it } from 'vitest';
import { loadTokenizer, messageTokens, textTokens } from '../../src/agent/context/tokens.js';
import { shortenArguments } from '../../src/agent/context/arguments.js';

describe('token counts', () => {
  it('counts with the tokenizer, special-token text included, and a long run without spaces in slices', async () => {
    await loadTokenizer();
    expect(textTokens('hello world')).toBe(2);
    expect(textTokens('<|endoftext|> is just text here')).toBeGreaterThan(3);
    // Whole, this run takes the tokenizer seconds (npm run bench agent shows the sliced count's time).
    expect(textTokens('x'.repeat(100_000))).toBeGreaterThan(10_000);
    expect(messageTokens({ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'execute_code', arguments: '{"code": "print(1)"}' } }] })).toBeGreaterThan(10);
  });

  it('shortens long tool-call arguments to valid JSON within the limit, keeping head and tail', () => {
    const args = JSON.stringify({ code: `START${'y'.repeat(50_000)}END`, reset: true });
    const short = shortenArguments(args, 2000);
    expect(short.length).toBeLessThanOrEqual(2000);
    const parsed = JSON.parse(short) as { code: string; reset: boolean };
    expect(parsed.reset).toBe(true);
    expect(parsed.code.startsWith('START')).toBe(true);
    expect(parsed.code.endsWith('END')).toBe(true);
    expect(parsed.code).toContain('characters cut from this argument in later requests');
    expect(shortenArguments('{"a": 1}', 2000)).toBe('{"a": 1}');
    const broken = shortenArguments(`{"code": "${'z'.repeat(5000)}`, 1000);
    expect(JSON.parse(broken)).toHaveProperty('shortened_arguments');
  });
});
