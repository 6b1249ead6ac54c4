import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

/** Writes `data: …\n\n` frames to a response, waiting when the socket's buffer is full. */
export interface SseWriter {
  /** Writes frames as one chunk; resolves when the socket can take more (false once closed). */
  write(frames: readonly unknown[]): Promise<boolean>;
  /** Writes `data: [DONE]` and ends the response. */
  done(): void;
  /** Ends the response without `[DONE]` (after an error frame). */
  end(): void;
}

/** Frames one JSON payload as an SSE data event. */
export function sseFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** Wraps a raw response whose `text/event-stream` headers were already written. */
export function createSseWriter(res: ServerResponse): SseWriter {
  let corked = false;
  const uncork = (): void => {
    if (!corked) return;
    corked = false;
    res.uncork();
  };
  return {
    async write(frames) {
      if (frames.length === 0) return !res.destroyed;
      if (res.destroyed || res.writableEnded) return false;
      let text = '';
      for (const frame of frames) text += sseFrame(frame);
      // Frames produced in the same tick leave in one socket write.
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      if (res.write(text)) return true;
      // Wait for the buffer to drain, or for the client to go away.
      await Promise.race([once(res, 'drain'), once(res, 'close')]);
      return !res.destroyed;
    },
    // Uncork first: `end(chunk)` on a corked response can overtake the corked frames.
    done() {
      uncork();
      if (!res.writableEnded) res.end('data: [DONE]\n\n');
    },
    end() {
      uncork();
      if (!res.writableEnded) res.end();
    },
  };
}
