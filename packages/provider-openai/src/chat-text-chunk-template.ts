import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

/**
 * A streamed response's plain text chunk as JSON text around its `content` string, learned
 * from one parsed chunk: a later payload that is this prefix, one JSON string and this
 * suffix is the same chunk with other text, so its text is read without parsing the payload.
 * Servers send hundreds of such chunks per answer, all alike but for the text (OpenAI's own
 * add a random `obfuscation` field to each, so they never match and are parsed as before).
 */
export interface ChatTextChunkTemplate {
  prefix: string;
  suffix: string;
}

const CONTENT_KEY = '"content":';
const QUOTE = 34;
const BACKSLASH = 92;

/** Whether a parsed chunk maps to a text delta and nothing else: one choice, no finish, no usage, a delta of `content` only. */
function isPlainText(chunk: ChatCompletionChunk): boolean {
  if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) return false;
  if (chunk.usage !== undefined && chunk.usage !== null) return false;
  const choices = chunk.choices as unknown;
  if (!Array.isArray(choices) || choices.length !== 1) return false;
  const choice = choices[0] as ChatCompletionChunk.Choice | null;
  if (typeof choice !== 'object' || choice === null || (choice.finish_reason !== undefined && choice.finish_reason !== null)) return false;
  const delta = choice.delta as unknown;
  if (typeof delta !== 'object' || delta === null || Array.isArray(delta)) return false;
  const keys = Object.keys(delta);
  return keys.length === 1 && keys[0] === 'content' && typeof (delta as { content: unknown }).content === 'string';
}

/**
 * The template of `payload` (whose parse is `chunk`) when it is a plain text chunk, else
 * `undefined`. Checked once per template: the prefix and suffix around another string parse
 * to the same plain text chunk, with that string as its text.
 */
export function learnChatTextChunkTemplate(payload: string, chunk: ChatCompletionChunk): ChatTextChunkTemplate | undefined {
  if (!isPlainText(chunk)) return undefined;
  const key = payload.lastIndexOf(CONTENT_KEY);
  if (key === -1) return undefined;
  let from = key + CONTENT_KEY.length;
  while (from < payload.length && payload.charCodeAt(from) !== QUOTE) {
    // Only white space may stand between the key and its string.
    const c = payload.charCodeAt(from);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return undefined;
    from++;
  }
  let to = from + 1;
  for (; to < payload.length; to++) {
    const c = payload.charCodeAt(to);
    if (c === BACKSLASH) to++;
    else if (c === QUOTE) break;
  }
  if (to >= payload.length) return undefined;
  const template = { prefix: payload.slice(0, from), suffix: payload.slice(to + 1) };
  // The proof, once: another text in the same place parses to the same kind of chunk with
  // that text. The probe differs from the chunk's own text, or a chunk whose text came from
  // another key (a duplicate `"\u0063ontent"`, a later `"content":` elsewhere) would pass.
  const text = chunk.choices[0]?.delta.content ?? '';
  const probeText = text === 'probe' ? 'probe!' : 'probe';
  try {
    const probe = JSON.parse(`${template.prefix}"${probeText}"${template.suffix}`) as ChatCompletionChunk;
    if (!isPlainText(probe) || probe.choices[0]?.delta.content !== probeText || probe.id !== chunk.id || probe.model !== chunk.model) return undefined;
  } catch {
    return undefined;
  }
  return template;
}

/**
 * The text of `payload` when it matches `template` with a plain JSON string (no escapes,
 * no control characters) as its content, else `undefined` (parse it then).
 */
export function matchChatTextChunk(template: ChatTextChunkTemplate, payload: string): string | undefined {
  const { prefix, suffix } = template;
  const to = payload.length - suffix.length - 1;
  const from = prefix.length + 1;
  if (to < from || payload.charCodeAt(from - 1) !== QUOTE || payload.charCodeAt(to) !== QUOTE) return undefined;
  if (!payload.startsWith(prefix) || !payload.endsWith(suffix)) return undefined;
  for (let i = from; i < to; i++) {
    const c = payload.charCodeAt(i);
    if (c === QUOTE || c === BACKSLASH || c < 32) return undefined;
  }
  return payload.slice(from, to);
}
