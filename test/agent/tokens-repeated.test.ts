import { describe, expect, it } from 'vitest';
import { loadTokenizer, textTokens } from '../../src/agent/context/tokens.js';

// Its own file: the tokenizer must not have loaded yet when the first count is taken.
describe('token counts of a repeated long text (the system prompt, the tool schemas)', () => {
  it('are the tokenizer counts once it has loaded, never the estimate made before, and stay the same when asked again', async () => {
    const prompt = Array.from({ length: 600 }, (_, i) => `word${i} and some more`).join(' ');
    const estimated = textTokens(prompt);
    let fourCharacters = 0;
    for (let i = 0; i < prompt.length; i += 1000) fourCharacters += Math.ceil(prompt.slice(i, i + 1000).length / 4);
    // Before the tokenizer has loaded: four characters a token.
    expect(estimated).toBe(fourCharacters);
    await loadTokenizer();
    const counted = textTokens(prompt);
    expect(counted).not.toBe(estimated);
    let sliced = 0;
    for (let i = 0; i < prompt.length; i += 1000) sliced += textTokens(prompt.slice(i, i + 1000));
    expect(counted).toBe(sliced);
    expect(textTokens(prompt)).toBe(counted);
    expect(textTokens(`${prompt}!`)).toBeGreaterThanOrEqual(counted);
  });
});
