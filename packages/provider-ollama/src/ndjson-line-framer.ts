import { StreamError } from '@toolwire/core';

/** How much of a damaged line a message quotes. */
const EXCERPT_CHARS = 80;

const NEWLINE = 0x0a;

/**
 * Re-chunks a streamed NDJSON body into one chunk per complete line, each checked to be
 * JSON, in time linear in the body. The `ollama` client's own line reader re-splits its
 * whole buffer at every network chunk (a 50 MB line in 64 KiB chunks costs seconds of
 * CPU), and `console.warn`s and skips a line that is not JSON, so a damaged line carrying a
 * tool call vanished and the answer looked complete. Fed whole lines, it splits each once;
 * a damaged line errors the body with a `StreamError`. How long a line may grow is the
 * fetch's bound (`maxMessageBytes`, see `limitUpstreamMessages`), which this body comes through.
 */
export function frameNdjsonLines(body: ReadableStream<Uint8Array>, options: { host: string }): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;

  const append = (piece: Uint8Array): void => {
    if (piece.length === 0) return;
    size += piece.length;
    parts.push(piece);
  };

  const takeLine = (controller: TransformStreamDefaultController<Uint8Array>, newlineMissing: boolean): void => {
    const line = parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts, size);
    parts = [];
    size = 0;
    const text = decoder.decode(line).trim();
    if (text === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      const excerpt = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
      throw new StreamError({
        provider: 'ollama',
        retryable: true,
        message:
          `Ollama at ${options.host} sent a line of its streamed answer that is not JSON (${JSON.stringify(excerpt)}), so part of the answer is lost. ` +
          'Retry the request; if it keeps happening, a proxy between here and Ollama may be changing the stream.',
      });
    }
    // Ollama reports a failure mid-stream as `{"error": "…"}`; the client throws `new Error(error)`,
    // which turns anything but a string into "[object Object]".
    const error = typeof parsed === 'object' && parsed !== null && 'error' in parsed ? parsed.error : undefined;
    if (error !== undefined && (typeof error !== 'string' || error === '')) {
      const said = JSON.stringify(error) ?? 'null';
      throw new StreamError({
        provider: 'ollama',
        message: `Ollama at ${options.host} reported an error in its streamed answer: ${said.length > EXCERPT_CHARS ? `${said.slice(0, EXCERPT_CHARS)}…` : said}. Retry the request; if it keeps happening, check Ollama's log.`,
      });
    }
    controller.enqueue(newlineMissing ? concat([line, Uint8Array.of(NEWLINE)], line.length + 1) : line);
  };

  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let start = 0;
        for (;;) {
          const end = chunk.indexOf(NEWLINE, start);
          if (end === -1) {
            append(chunk.subarray(start));
            return;
          }
          append(chunk.subarray(start, end + 1));
          takeLine(controller, false);
          start = end + 1;
        }
      },
      flush(controller) {
        if (size > 0) takeLine(controller, true);
      },
    }),
  );
}

function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  const joined = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
