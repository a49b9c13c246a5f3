import type { ChatMessage } from '../../sessions/index.js';

type Count = (text: string) => number;

/** Special-token text in a message is counted as text, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };
/** What a message costs beyond its text (role, separators), as the API counts it. */
const PER_MESSAGE = 4;
/** What one image part costs, roughly (a detailed 512×512 tile set is 765). */
const PER_IMAGE = 800;

let loaded: Promise<Count> | undefined;
let count: Count = (text) => Math.ceil(text.length / 4);

/**
 * Loads the tokenizer (o200k_base, the encoding of current OpenAI models; close enough for
 * others) once per process. Until it has loaded, sizes are estimated at four characters a token.
 */
export function loadTokenizer(): Promise<void> {
  loaded ??= import('gpt-tokenizer/encoding/o200k_base').then(
    (module) => {
      // Counts cached before now were estimates.
      repeated.clear();
      return (count = (text) => module.countTokens(text, AS_TEXT));
    },
    () => count,
  );
  return loaded.then(() => undefined);
}

/** Past this many characters a text is estimated, not tokenized: counting stays quick whatever arrives. */
const COUNT_LIMIT = 200_000;

/**
 * BPE merges a run without spaces in time that grows with the square of its length (100,000
 * repeated characters take seconds): long texts are counted in slices of this many characters.
 */
const SLICE = 1000;

/**
 * Counts of long texts seen lately: every request counts the same system prompt and tool
 * schemas (tens of kilobytes), which was a fifth of the gateway's CPU per message.
 */
const repeated = new Map<string, number>();
const REPEATED_MIN_LENGTH = 2000;
const REPEATED_MAX_ENTRIES = 64;

/** Tokens of a text. */
export function textTokens(text: string): number {
  if (!text) return 0;
  if (text.length > COUNT_LIMIT) return Math.ceil(text.length / 3);
  if (text.length <= SLICE) return count(text);
  if (text.length < REPEATED_MIN_LENGTH) return slicedTokens(text);
  const known = repeated.get(text);
  if (known !== undefined) return known;
  const total = slicedTokens(text);
  if (repeated.size >= REPEATED_MAX_ENTRIES) repeated.delete(repeated.keys().next().value!);
  repeated.set(text, total);
  return total;
}

function slicedTokens(text: string): number {
  let total = 0;
  for (let i = 0; i < text.length; i += SLICE) total += count(text.slice(i, i + SLICE));
  return total;
}

/** Tokens a message takes in a request: its text, its tool calls, its images. */
export function messageTokens(message: ChatMessage): number {
  let total = PER_MESSAGE;
  const content = message.content;
  if (typeof content === 'string') total += textTokens(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === 'text') total += textTokens(part.text);
      else if (part.type === 'image_url') total += PER_IMAGE;
      else total += textTokens(JSON.stringify(part));
    }
  }
  if (message.role === 'assistant' && message.tool_calls) {
    for (const call of message.tool_calls) {
      total += 8 + (call.type === 'function' ? textTokens(call.function.name) + textTokens(call.function.arguments) : textTokens(JSON.stringify(call)));
    }
  }
  return total;
}
