import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerWatch } from './answer-watch.ts';

function watch(id: unknown, ...chunks: string[]): AnswerWatch {
  const w = new AnswerWatch(id);
  for (const chunk of chunks) w.push(new TextEncoder().encode(chunk));
  return w;
}

describe('AnswerWatch', () => {
  // Second review: these were read otherwise than the SDK reads them.
  it('counts an event id only as the SDK does: on an event with data, and not once a result went by', () => {
    // The SDK's parser dispatches no event without a data line, so it never sees that id.
    expect(watch(7, 'id: 1\n\n').resumable).toBe(false);
    expect(watch(7, 'id: 1\n\ndata: x\n\n').resumable).toBe(false);
    // The SDK does not reopen a stream that carried a result, for any request.
    expect(watch(7, 'id: 1\ndata: {"jsonrpc":"2.0","id":8,"result":{}}\n\n').resumable).toBe(false);
  });

  it('knows the id the SDK resumes from, and that a GET stream is resumed even without one', () => {
    const w = watch(7, 'id: a\ndata:\n\nid: b\ndata: x\n\ndata: y\n\n');
    expect(w.lastEventId).toBe('b');
    expect(new AnswerWatch(7, { reconnectable: true }).resumable).toBe(true);
    expect(watch(7, 'data: {"jsonrpc"').pending).toBe(true);
    expect(watch(7, 'data: x\n').pending).toBe(true);
    expect(watch(7, 'data: x\n\n').pending).toBe(false);
  });

  it('matches the answer by Number(id), as the SDK does', () => {
    expect(watch(7, 'data: {"jsonrpc":"2.0","id":"7","result":{}}\n\n').answered).toBe(true);
    expect(watch(7, 'data: {"jsonrpc":"2.0","id":"7x","result":{}}\n\n').answered).toBe(false);
  });

  it('never reads a request or notification as an answer, whatever else it holds', () => {
    const w = watch(7, 'data: {"jsonrpc":"2.0","id":7,"method":"roots/list","result":{}}\n\n');
    expect(w.answered).toBe(false);
    expect(w.problem).toBeUndefined();
  });

  it('sees the answer for its request, whatever the line ends and chunking', () => {
    const event = 'event: message\r\n: note\r\ndata: {"jsonrpc":"2.0",\r\ndata: "id":7,"result":{}}\r\n\r\n';
    for (let cut = 0; cut <= event.length; cut++) expect(watch(7, event.slice(0, cut), event.slice(cut)).answered).toBe(true);
    expect(watch(7, 'data: {"jsonrpc":"2.0","id":7,"result":{}}\r\r').answered).toBe(true);
  });

  it('ignores other requests, other event types and notifications', () => {
    expect(watch(7, 'data: {"jsonrpc":"2.0","id":8,"result":{}}\n\n').answered).toBe(false);
    expect(watch(7, 'event: other\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n').answered).toBe(false);
    expect(watch(7, 'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n').answered).toBe(false);
  });

  it('says what is wrong with an answer that is not valid', () => {
    const w = watch(7, 'data: {"jsonrpc":"2.0","id":7,"error":"boom"}\n\n');
    expect(w.answered).toBe(false);
    expect(w.problem).toContain('at error:');
  });

  it('counts an event id as resumable, and a last event without its blank line once ended', () => {
    expect(watch(7, 'id: 1\ndata: x\n\n').resumable).toBe(true);
    expect(watch(7, 'id: 1\ndata:\n\n').resumable).toBe(true);
    const unfinished = watch(7, 'data: {"jsonrpc":"2.0","id":7,"result":{}}\n');
    expect(unfinished.answered).toBe(false);
    unfinished.end();
    expect(unfinished.answered).toBe(true);
  });
});

// What the SDK itself makes of an event stream answering request `id` (its own transport and
// parser, fed the bytes as a POST's response): whether the call is answered, and whether it
// reopens the stream to resume it (it says so through onerror when it may not retry).
async function sdkReading(id: number, chunks: Uint8Array[]): Promise<{ answered: boolean; resumes: boolean; lastEventId: string | undefined }> {
  let index = 0;
  let ended: () => void = () => undefined;
  const read = new Promise<void>((resolve) => (ended = resolve));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) {
        controller.close();
        ended();
      } else controller.enqueue(chunk);
    },
  });
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:9/mcp'), {
    fetch: () => Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })),
    reconnectionOptions: { initialReconnectionDelay: 60_000, maxReconnectionDelay: 60_000, reconnectionDelayGrowFactor: 1, maxRetries: 0 },
  });
  let answered = false;
  let resumes = false;
  // What it would send as Last-Event-ID: the id of the last event it read that had one.
  let lastEventId: string | undefined;
  transport.onmessage = (message) => {
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && Number(message.id) === id) answered = true;
  };
  transport.onerror = (error) => {
    if (error.message.startsWith('Maximum reconnection attempts')) resumes = true;
  };
  await transport.start();
  await transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } }, { onresumptiontoken: (token) => (lastEventId = token) });
  await read;
  // The SDK's pipeline (decoder, parser, its reading loop) settles a few turns after the end.
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  await transport.close();
  return { answered, resumes, lastEventId };
}

const LINE_ENDS = ['\n', '\r', '\r\n'];
const line = fc.oneof(
  fc.constantFrom(
    'data: {"jsonrpc":"2.0","id":7,"result":{}}',
    'data:{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"é😀"}}',
    'data: {"jsonrpc":"2.0","id":"7","result":{}}',
    'data: {"jsonrpc":"2.0","id":"07","result":{}}',
    'data: {"jsonrpc":"2.0","id":8,"result":{}}',
    'data: {"jsonrpc":"2.0","id":7,"error":"boom"}',
    'data: {"jsonrpc":"2.0","id":7,"method":"ping"}',
    'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}',
    'data: {"jsonrpc":"2.0",',
    'data:  "id":7,"result":{}}',
    'data: ',
    'data',
    'data: not json',
    'id: 1',
    'id:',
    'id',
    'id: a\u0000b',
    'event: message',
    'event: other',
    'event:',
    'retry: 5',
    'retry: x',
    ': comment',
    'other: field',
  ),
  fc.constant(''),
);
const stream = fc
  .record({
    bom: fc.boolean(),
    lines: fc.array(fc.tuple(line, fc.constantFrom(...LINE_ENDS)), { maxLength: 14 }),
    tail: fc.constantFrom('', 'data: {"jsonrpc":"2.0","id":7,"result":{}}', 'id: 9'),
  })
  .map(({ bom, lines, tail }) => new TextEncoder().encode(`${bom ? '\ufeff' : ''}${lines.map(([text, end]) => text + end).join('')}${tail}`));
const cuts = fc.array(fc.nat(), { maxLength: 8 });

function chunked(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const points = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    if (point > start) chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return chunks;
}

describe('AnswerWatch and the SDK', () => {
  it('agree on whether a stream answered the request and whether the SDK resumes it, whatever the lines and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(stream, cuts, async (bytes, at) => {
        const chunks = chunked(bytes, at);
        const w = new AnswerWatch(7);
        for (const chunk of chunks) w.push(chunk);
        w.end();
        // requestScopedFetch ends the SDK's copy with a blank line, as `end()` reads the last event.
        const sdk = await sdkReading(7, [...chunks, new TextEncoder().encode('\n\n')]);
        expect({ answered: w.answered, resumes: w.resumable && !w.answered }).toEqual({ answered: sdk.answered, resumes: sdk.resumes && !sdk.answered });
        // requestScopedFetch knows a resuming GET by the id the SDK resumes from.
        expect(w.lastEventId).toBe(sdk.lastEventId);
      }),
      { numRuns: 400, seed: 26_301 },
    );
  });
});
