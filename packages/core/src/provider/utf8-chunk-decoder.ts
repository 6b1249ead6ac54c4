/**
 * Decodes a byte stream as UTF-8 one chunk at a time: together, the chunks' texts are the text
 * of the whole stream decoded at once (the WHATWG decode `new TextDecoder().decode(all)` does:
 * a byte-order mark at the start of the stream dropped, malformed bytes as U+FFFD), with
 * Node's `Buffer` decoding and no native converter per stream.
 *
 * Why: a streamed response lives for seconds to minutes, and a gateway holds thousands of
 * them. A `TextDecoder` keeps a native converter for its whole life (memory outside the JS
 * heap, per stream); this keeps at most the three bytes of a character a chunk cut in two.
 * A chunk that is a `Buffer` (Node's HTTP client gives those) also decodes faster.
 *
 * How the text is split between chunks may differ from a streaming `TextDecoder` for
 * malformed input: bytes at a chunk's end that start a multi-byte sequence are held for the
 * next chunk without checking the bytes after the lead (`E0 80` is held, then reported as
 * U+FFFD with the next chunk). Node 24's streaming `TextDecoder` also drops a U+FEFF that
 * follows a character cut at the very start of the stream; this does not (the whole-stream
 * decode keeps it).
 */
export class Utf8ChunkDecoder {
  /** The start of a character the last chunk ended in the middle of (one to three bytes). */
  #held: Buffer | undefined;
  /** Whether any text came out since the stream started: a byte-order mark after that is text. */
  #started = false;

  /** The text of `bytes`, less a character cut at its end (kept for the next chunk). */
  decode(bytes: Uint8Array): string {
    let buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const held = this.#held;
    if (held !== undefined) {
      this.#held = undefined;
      buffer = Buffer.concat([held, buffer]);
    }
    const complete = completeLength(buffer);
    // A copy: holding a view would keep the whole chunk's memory alive.
    if (complete < buffer.length) this.#held = Buffer.from(buffer.subarray(complete));
    return this.#text(buffer.toString('utf8', 0, complete));
  }

  /** Ends the stream: a character still cut becomes U+FFFD. The decoder can then start a new stream. */
  end(): string {
    const held = this.#held;
    this.#held = undefined;
    const text = held === undefined ? '' : this.#text(held.toString('utf8'));
    this.#started = false;
    return text;
  }

  #text(text: string): string {
    if (this.#started || text.length === 0) return text;
    this.#started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

/**
 * How many bytes of `bytes` end on a character boundary: all of them, unless they end inside
 * a multi-byte sequence whose lead byte (C2–F4) announces more bytes than follow it.
 */
function completeLength(bytes: Buffer): number {
  const length = bytes.length;
  let i = length - 1;
  // Most chunks of a JSON stream end in ASCII (a newline).
  if (i < 0 || (bytes[i] ?? 0) < 0x80) return length;
  let continuation = 0;
  while (i > 0 && continuation < 3 && ((bytes[i] ?? 0) & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  const lead = bytes[i] ?? 0;
  if (lead < 0xc2 || lead > 0xf4) return length;
  const needs = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return needs > continuation + 1 ? i : length;
}
