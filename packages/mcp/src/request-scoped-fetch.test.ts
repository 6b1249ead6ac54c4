import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { requestScopedFetch } from './request-scoped-fetch.ts';
import { MAX_RETRY_MS } from './retry-cap.ts';

/**
 * The SDK's transport over requestScopedFetch, for one call whose event stream is `first`
 * and then a broken connection. Resolves with what the SDK was told and the Last-Event-ID of
 * each GET it made to resume (answered 405), once it made one or after `waitMs`.
 */
async function breakAfter(first: string, waitMs = 5000): Promise<{ messages: unknown[]; resumedFrom: string[] }> {
  const resumedFrom: string[] = [];
  const fetch = (_input: string | URL, init: RequestInit = {}): Promise<Response> => {
    if ((init.method ?? 'GET') === 'GET') {
      resumedFrom.push(new Headers(init.headers).get('last-event-id') ?? '');
      return Promise.resolve(new Response(null, { status: 405 }));
    }
    let pulls = 0;
    // Pulled only when read, as a socket's data is: the event is read, then the break.
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (pulls++ === 0) controller.enqueue(new TextEncoder().encode(first));
          else controller.error(new TypeError('terminated'));
        },
      },
      { highWaterMark: 0 },
    );
    return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
  };
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:9/mcp'), {
    fetch: requestScopedFetch(fetch, { maxStreamOpens: 10, streamWindowMs: 1000, onWarning: () => undefined }),
  });
  const messages: unknown[] = [];
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = () => undefined;
  await transport.start();
  await transport.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } });
  const until = Date.now() + waitMs;
  while (resumedFrom.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  await transport.close();
  return { messages, resumedFrom };
}

describe('requestScopedFetch', () => {
  // Second review: a break was turned into an error answer, and the SDK never resumed.
  it('leaves a resumable stream whose connection breaks to the SDK, which resumes it with Last-Event-ID', async () => {
    // The server refuses the resumption (405): the call fails at once, rather than waiting for its timeout.
    const refused = { id: 7, error: { message: 'the response stream broke before the answer, and the server refused to resume it (HTTP 405)' } };
    expect(await breakAfter('retry: 1\nid: e1\ndata:\n\n')).toMatchObject({ messages: [refused], resumedFrom: ['e1'] });
    // With CR line ends the SDK's parser waits for the byte after the last CR: the stream is
    // ended with a LF rather than errored, which would drop that event and its id.
    expect(await breakAfter('retry: 1\rid: e1\rdata:\r\r')).toMatchObject({ messages: [refused], resumedFrom: ['e1'] });
  });

  it('fails the call at once when a stream that is not resumable breaks', async () => {
    const { messages, resumedFrom } = await breakAfter('retry: 1\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n', 500);
    expect(resumedFrom).toEqual([]);
    expect(messages.at(-1)).toMatchObject({ id: 7, error: { message: 'the response stream broke before the answer: terminated' } });
  });
});

describe('requestScopedFetch and retry: delays', () => {
  const sse = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  const read = async (response: Response) => await response.text();

  // Second review: the SDK keeps one reconnection timer and close() clears only the last one
  // set. The server's stream ending with `retry: 600000` set one, a call's stream breaking
  // another: the first kept the host process up ten minutes after close().
  it(`caps what every stream the SDK reads asks for at ${MAX_RETRY_MS} ms`, async () => {
    let answer = 'retry: 600000\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n';
    const scoped = requestScopedFetch(() => Promise.resolve(sse(answer)), { maxStreamOpens: 10, streamWindowMs: 1000, onWarning: () => undefined });
    // The server's own stream.
    expect(await read(await scoped('http://127.0.0.1:9/mcp', { method: 'GET' }))).toContain(`retry: ${MAX_RETRY_MS}\n`);
    // A call's stream, and its resumption.
    answer = 'retry: 600000\nid: e1\ndata:\n\n';
    const call = await read(await scoped('http://127.0.0.1:9/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' }) }));
    expect(call).toContain(`retry: ${MAX_RETRY_MS}\n`);
    expect(call).not.toContain('600000');
    answer = 'retry: 600000\nid: e2\ndata:\n\n';
    const resumed = await read(await scoped('http://127.0.0.1:9/mcp', { method: 'GET', headers: { 'last-event-id': 'e1' } }));
    expect(resumed).toContain(`retry: ${MAX_RETRY_MS}\n`);
    expect(resumed).not.toContain('600000');
  });

  it('leaves a JSON answer as it is', async () => {
    const json = '{"jsonrpc":"2.0","id":1,\n"result":{}}';
    const scoped = requestScopedFetch(() => Promise.resolve(new Response(json, { headers: { 'content-type': 'application/json' } })), { maxStreamOpens: 10, streamWindowMs: 1000, onWarning: () => undefined });
    expect(await read(await scoped('http://127.0.0.1:9/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' }) }))).toBe(json);
  });

  it('answers a GET made after close() (an aborted signal) 405 without sending it', async () => {
    let sent = 0;
    const scoped = requestScopedFetch(() => {
      sent++;
      return Promise.resolve(sse(': x\n\n'));
    }, { maxStreamOpens: 10, streamWindowMs: 1000, onWarning: () => undefined });
    expect((await scoped('http://127.0.0.1:9/mcp', { method: 'GET', signal: AbortSignal.abort() })).status).toBe(405);
    expect(sent).toBe(0);
  });
});

describe('requestScopedFetch and an answer on another stream', () => {
  // Second review: call 7's stream was resumed (an id, no answer) while its answer came on
  // call 8's stream. The SDK resolved call 7, nothing cancelled it here, and its stream was
  // resumed for as long as the tools stayed open, within its budget (a request that never ended here).
  it.each(['another call\'s stream', 'the server\'s own stream'])('ends the resumption of a call answered on %s', { timeout: 15_000 }, async (where) => {
    const onServerStream = where.startsWith('the server');
    const enc = new TextEncoder();
    const resumedFrom: string[] = [];
    const answer = (id: number) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } })}\n\n`;
    const sse = (text: string) => new Response(enc.encode(text), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const fetch = (_input: string | URL, init: RequestInit = {}): Promise<Response> => {
      if ((init.method ?? 'GET') === 'GET') {
        const from = new Headers(init.headers).get('last-event-id') ?? '';
        resumedFrom.push(from);
        // The server's own stream: the answer to call 7, once call 7 has been resumed.
        if (from === '') return Promise.resolve(onServerStream ? sse(answer(7)) : new Response(null, { status: 405 }));
        // Resumed, and ended again without the answer (resumed again after retry: 100).
        return Promise.resolve(sse(`retry: 100\nid: ${from}\ndata:\n\n`));
      }
      const { id } = JSON.parse(init.body as string) as { id?: number };
      if (id === undefined) return Promise.resolve(new Response(null, { status: 202 }));
      return Promise.resolve(sse(id === 7 ? 'retry: 100\nid: a7\ndata:\n\n' : `id: a8\n${onServerStream ? '' : answer(7)}${answer(8)}`));
    };
    const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:9/mcp'), {
      fetch: requestScopedFetch(fetch, { maxStreamOpens: 100, streamWindowMs: 60_000, onWarning: () => undefined }),
    });
    const answered: unknown[] = [];
    transport.onmessage = (message) => answered.push((message as { id?: unknown }).id);
    transport.onerror = () => undefined;
    await transport.start();
    try {
      await transport.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } });
      while (resumedFrom.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      if (onServerStream) await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await transport.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'y' } });
      while (!answered.includes(8) || !answered.includes(7)) await new Promise((resolve) => setTimeout(resolve, 10));
      const at = resumedFrom.length;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(answered.sort()).toEqual([7, 8]);
      // At most the resumption already under way when the answer came.
      expect(resumedFrom.length - at).toBeLessThanOrEqual(1);
    } finally {
      await transport.close();
    }
  });
});

describe('requestScopedFetch and event ids used twice', () => {
  // Second review: a GET whose Last-Event-ID had ended an earlier call's stream was taken for
  // that call's resumption and refused (405): a server numbering each stream's events from 1
  // lost its own event stream for good, without a warning.
  it('sends the reopening of the server\'s own stream to the server when its last id also ended a call\'s stream', async () => {
    const enc = new TextEncoder();
    const sse = (text: string) => new Response(enc.encode(text), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const sent: string[] = [];
    const scoped = requestScopedFetch(
      (_input, init = {}) => {
        sent.push(`${init.method ?? 'GET'} ${new Headers(init.headers).get('last-event-id') ?? ''}`);
        if ((init.method ?? 'GET') === 'POST') return Promise.resolve(sse(`id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 3, result: {} })}\n\n`));
        return Promise.resolve(sse('id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n'));
      },
      { maxStreamOpens: 10, streamWindowMs: 60_000, onWarning: () => undefined },
    );
    // A call answered on a stream whose last id is 1.
    await (await scoped('http://127.0.0.1:9/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call' }) })).text();
    // The server's own stream, whose last id is 1 too, ends; the SDK reopens it from 1.
    await (await scoped('http://127.0.0.1:9/mcp', { method: 'GET' })).text();
    const reopened = await scoped('http://127.0.0.1:9/mcp', { method: 'GET', headers: { 'last-event-id': '1' } });
    expect(reopened.status).toBe(200);
    expect(sent).toEqual(['POST ', 'GET ', 'GET 1']);
  });
});
