import { describe, expect, it } from 'vitest';
import { usageText } from '../../src/gateway/session-commands.js';

/* /usage says what the provider's prompt cache gave and took, and nothing about it when it did neither. */
describe('/usage and the prompt cache', () => {
  const context = { tokens: 5000, window: 200_000, threshold: 160_000 };
  it('names the cache reads and writes of the last turn and the session', () => {
    const text = usageText(
      {
        model: 'claude-x',
        lastTurn: { model: 'claude-x', promptTokens: 12_345, completionTokens: 80, calls: 2, estimated: false, cacheReadTokens: 11_800, cacheWriteTokens: 420 },
        session: { promptTokens: 20_000, completionTokens: 200, calls: 4, estimated: false, summaries: 0, cacheReadTokens: 15_000, cacheWriteTokens: 0 },
        context,
      },
      false,
    );
    expect(text).toMatch(/^Last turn: 12,345 in \(11,800 read from cache, 420 written to it\) \+ 80 out tokens \(2 model calls\)$/m);
    expect(text).toMatch(/^Session: 20,000 in \(15,000 read from cache\) \+ 200 out tokens \(4 model calls\)$/m);
  });

  it('says nothing of a cache that was not used', () => {
    const text = usageText({ model: 'm', session: { promptTokens: 10, completionTokens: 2, calls: 1, estimated: false, summaries: 0, cacheReadTokens: 0 }, context }, true);
    expect(text).toMatch(/^Session: 10 in \+ 2 out tokens \(1 model call\)$/m);
  });
});
