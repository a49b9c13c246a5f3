import { describe, expect, it } from 'vitest';
import { isChatMessage, messageProblem } from '../../src/sessions/index.js';

// Each stored shape and what the log line says of it (the same texts the hand-written checks gave).
const cases: Array<[unknown, string | undefined]> = [
  [null, 'not a JSON object'],
  [['user'], 'not a JSON object'],
  ['hi', 'not a JSON object'],
  [{}, 'unknown role undefined'],
  [{ role: 'bot', content: 'hi' }, 'unknown role "bot"'],
  [{ role: 'user' }, 'user message without content'],
  [{ role: 'system', content: null }, 'system message without content'],
  [{ role: 'user', content: 5 }, 'content is neither text nor a list of parts'],
  [{ role: 'tool', content: 3, tool_call_id: 'a' }, 'content is neither text nor a list of parts'],
  [{ role: 'tool', content: 'x' }, 'tool message without tool_call_id'],
  [{ role: 'assistant', tool_calls: 'x' }, 'malformed tool_calls'],
  [{ role: 'assistant', tool_calls: [{ id: 'a' }] }, 'malformed tool_calls'],
  [{ role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: 1 } }] }, 'malformed tool_calls'],
  [{ role: 'user', content: 'hi' }, undefined],
  [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, undefined],
  [{ role: 'developer' }, undefined],
  [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] }, undefined],
  [{ role: 'tool', content: 'out', tool_call_id: 'a' }, undefined],
];

describe('a stored message read back', () => {
  it.each(cases)('%j: %s', (value, problem) => {
    expect(messageProblem(value)).toBe(problem);
    expect(isChatMessage(value)).toBe(problem === undefined);
  });

  it('keeps fields the schema does not name (the value itself narrows, nothing is stripped)', () => {
    const value: unknown = { role: 'assistant', content: 'hi', reasoning: 'kept' };
    expect(isChatMessage(value) && 'reasoning' in value && value.reasoning).toBe('kept');
  });
});
