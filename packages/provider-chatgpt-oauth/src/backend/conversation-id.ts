import { createHash } from 'node:crypto';

import type { Message } from '@toolwire/core';

/**
 * A stable conversation id for `prompt_cache_key` and `session_id`: derived from the
 * model and the conversation's opening (its system messages and first user message), so
 * every turn of one conversation gets the same id without the caller keeping state.
 * Formatted as a UUID.
 */
export function deriveConversationId(modelId: string, messages: readonly Message[]): string {
  const hash = createHash('sha256');
  hash.update(`toolwire-chatgpt\0${modelId}\0`);
  for (const message of messages) {
    if (message.role === 'system') hash.update(`system\0${message.content}\0`);
    if (message.role === 'user') {
      hash.update(`user\0${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}\0`);
      break;
    }
  }
  const hex = hash.digest('hex');
  // Version 4 / variant 1 bits, so strict UUID parsers accept it.
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
