// What a fuzzed MCP server writes in answer to one request, shared by the stdio server (a
// process of its own) and the HTTP server (in the test's process). No imports: the stdio
// server loads this file inside the sandbox.

/** One thing a server writes while it answers a request. */
export type Frame =
  /** The answer: `result` for the request's own id. */
  | { kind: 'answer'; result: unknown }
  /** An error answer for the request's own id. */
  | { kind: 'error'; error: unknown }
  /** Any message as it is; the string `"$ID"` anywhere in it stands for the request's id. */
  | { kind: 'message'; message: unknown }
  /** Bytes as they are (base64), then a line end: garbage lines, invalid UTF-8. */
  | { kind: 'raw'; base64: string }
  /** The answer cut after `keep` characters, then a line end: a frame torn in two. */
  | { kind: 'truncated'; result: unknown; keep: number }
  /** The server goes away (stdio: exits; HTTP: resets the connection). */
  | { kind: 'exit' };

/** How a server answers each request of a session. */
export interface McpScenario {
  initialize: Frame[];
  /** Frames for `tools/list` page i (no cursor: 0; cursor `c<i>`: i; any other: the last). */
  pages: Frame[][];
  call: Frame[];
  /** Stdio: bytes per write (0: one write per frame). */
  chunk: number;
  lineEnd: '\n' | '\r\n';
  /** HTTP: how answers are sent. */
  http: HttpStyle;
}

/** How an HTTP server frames its answers. */
export interface HttpStyle {
  /** An event stream, or JSON (several messages as a batch array). */
  body: 'sse' | 'json';
  contentType: string;
  /** SSE: `\r\n` line ends, comments between events, data split over several `data:` lines, an `event:` name, `id:`s, `retry:`. */
  crlf: boolean;
  comments: boolean;
  splitData: boolean;
  eventName: string | undefined;
  ids: boolean;
  /** SSE: the last event is not ended by a blank line. */
  unterminated: boolean;
  status: number;
  /** The one request answered in this style; the others get plain SSE. */
  target: 'initialize' | 'tools/list' | 'tools/call';
}

/** The plain style of the requests a style does not target. */
export const PLAIN_HTTP: HttpStyle = {
  body: 'sse',
  contentType: 'text/event-stream',
  crlf: false,
  comments: false,
  splitData: false,
  eventName: undefined,
  ids: false,
  unterminated: false,
  status: 200,
  target: 'tools/call',
};

/** The request's id written into `value` wherever it has the string "$ID". */
export function withId(value: unknown, id: unknown): unknown {
  if (value === '$ID') return id;
  if (Array.isArray(value)) return value.map((item: unknown) => withId(item, id));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) Object.defineProperty(out, key, { value: withId(item, id), enumerable: true, writable: true, configurable: true });
  return out;
}

/** A frame as the text of one message (JSON without a line end), raw bytes, or the end of the server. */
export function renderFrame(frame: Frame, id: unknown): { text: string } | { bytes: Buffer } | { exit: true } {
  switch (frame.kind) {
    case 'answer':
      return { text: JSON.stringify({ jsonrpc: '2.0', id, result: frame.result }) };
    case 'error':
      return { text: JSON.stringify({ jsonrpc: '2.0', id, error: frame.error }) };
    case 'message':
      return { text: JSON.stringify(withId(frame.message, id)) ?? 'null' };
    case 'raw':
      return { bytes: Buffer.concat([Buffer.from(frame.base64, 'base64'), Buffer.from('\n')]) };
    case 'truncated': {
      const text = JSON.stringify({ jsonrpc: '2.0', id, result: frame.result });
      return { text: text.slice(0, Math.min(frame.keep, text.length - 1)) };
    }
    case 'exit':
      return { exit: true };
    default: {
      const unknown: never = frame;
      throw new Error(`unknown frame ${JSON.stringify(unknown)}`);
    }
  }
}

/** Which frames answer a request, by its method and params. */
export function framesFor(scenario: McpScenario, method: string, params: unknown): Frame[] | undefined {
  if (method === 'initialize') return scenario.initialize;
  if (method === 'tools/list') {
    const cursor = (params as { cursor?: unknown } | undefined)?.cursor;
    if (cursor === undefined) return scenario.pages[0];
    const index = typeof cursor === 'string' && /^c\d+$/.test(cursor) ? Number(cursor.slice(1)) : scenario.pages.length - 1;
    return scenario.pages[Math.min(index, scenario.pages.length - 1)];
  }
  if (method === 'tools/call') return scenario.call;
  return undefined;
}
