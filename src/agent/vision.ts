import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { HermesConfig } from '../config/schema.js';
import type { Logger } from '../shared/logger.js';
import type { ChatMessage } from '../sessions/index.js';
import type { ModelClient } from './model-client.js';
import { ModelError } from './model-errors.js';
import type { TurnImage } from './types.js';

/** Answers of an endpoint that cannot take image parts (bad request, unsupported media, unprocessable). */
const REFUSES_IMAGES = new Set([400, 415, 422]);

/** A model client that knows whether its endpoint takes images. */
export interface VisionClient extends ModelClient {
  /** False once the endpoint refused image parts (`model.vision: auto`), or when vision is off. */
  readonly seesImages: boolean;
}

/**
 * The client as `model.vision` wants it. `true` and `false` leave it as it is (images are
 * sent, or never); `auto` sends them until the endpoint refuses a request that has them, then
 * sends that request again without them and sends none from then on.
 */
export function visionClient(client: ModelClient, vision: HermesConfig['model']['vision'], logger: Logger): VisionClient {
  let sees = vision !== false;
  return {
    get model() {
      return client.model;
    },
    get seesImages() {
      return sees;
    },
    route: () => client.route?.(),
    async complete(request) {
      if (vision !== 'auto' || !hasImages(request.messages)) return client.complete(request);
      try {
        return await client.complete(request);
      } catch (error) {
        if (!(error instanceof ModelError) || error.status === undefined || !REFUSES_IMAGES.has(error.status)) throw error;
        sees = false;
        logger.warn({ status: error.status }, 'the model endpoint refused a request with images (model.vision: auto); images go as files only from now on');
        for (const message of request.messages) dropImages(message);
        return client.complete(request);
      }
    },
  };
}

/** The user message with the images as image parts after its text, when the client sees images. */
export function withImages(message: ChatMessage & { role: 'user' }, images: readonly TurnImage[] | undefined, client: VisionClient): ChatMessage {
  if (!images || images.length === 0 || !client.seesImages || typeof message.content !== 'string') return message;
  const parts: ChatCompletionContentPart[] = [{ type: 'text', text: message.content }];
  for (const image of images) {
    parts.push({ type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data.toString('base64')}` } });
  }
  return { role: 'user', content: parts };
}

function hasImages(messages: readonly ChatMessage[]): boolean {
  return messages.some((message) => message.role === 'user' && Array.isArray(message.content) && message.content.some((part) => part.type === 'image_url'));
}

/** Leaves a user message its text only (the `[attached: …]` lines still say where each image is). */
function dropImages(message: ChatMessage): void {
  if (message.role !== 'user' || !Array.isArray(message.content)) return;
  message.content = message.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}
