import { UnsupportedFeatureError } from '@toolwire/core';

/**
 * Turns a user message image (a data URL or raw base64) into bytes for Ollama, which
 * takes base64 only. Bytes, never a string, go to the client: the Node `ollama` client
 * reads a string image from disk when it names an existing file, and image strings may
 * come from untrusted callers (the gateway).
 */
export function imageToBytes(image: string): Uint8Array {
  let data = image.trim();
  if (data.startsWith('data:')) {
    const comma = data.indexOf(',');
    const header = comma === -1 ? '' : data.slice(0, comma);
    if (comma === -1 || !header.endsWith(';base64')) {
      throw new UnsupportedFeatureError({
        feature: 'image',
        message: 'Ollama needs base64 image data; pass the image as a base64 data URL (data:image/png;base64,…).',
      });
    }
    data = data.slice(comma + 1);
  } else if (data.startsWith('http://') || data.startsWith('https://')) {
    throw new UnsupportedFeatureError({
      feature: 'image-url',
      message: 'Ollama cannot fetch image URLs; download the image and pass its bytes as base64 or a data URL.',
    });
  }
  if (!isBase64(data)) {
    throw new UnsupportedFeatureError({
      feature: 'image',
      message: 'The image is neither a data URL nor base64; pass the image bytes as base64 or a data URL.',
    });
  }
  return Buffer.from(data, 'base64');
}

/** Padded base64 (what Ollama decodes), line breaks allowed; checked with a plain loop. */
function isBase64(text: string): boolean {
  let length = 0;
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) continue;
    length++;
    if (c === 61) {
      padding++;
      continue;
    }
    if (padding > 0) return false; // '=' only at the end
    const ok =
      (c >= 65 && c <= 90) || // A-Z
      (c >= 97 && c <= 122) || // a-z
      (c >= 48 && c <= 57) || // 0-9
      c === 43 || c === 47 || // + /
      c === 45 || c === 95; // - _ (base64url)
    if (!ok) return false;
  }
  return length > 0 && length % 4 === 0 && padding <= 2;
}
