import { getEventListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamTimeoutError } from '@toolwire/core';
import { FETCH_SIGNAL, readsFetchSignal, takeBodyReader } from '@toolwire/core/provider';
import type { BodyReader } from '@toolwire/core/provider';
import { closeServed, serve } from '../../test/helpers/serve-handler.ts';
import { createNodeBody, createNodeHttpFetch, rawRequestHeaders } from './node-http-fetch.ts';

afterEach(closeServed);

// vitest.shared.ts starts the test workers with --expose-gc.
const gc =
  globalThis.gc ??
  ((): never => {
    throw new Error('globalThis.gc is missing: run the tests with --expose-gc (vitest.shared.ts passes it)');
  });

/** Whether what `ref` points to is collected once nothing else holds it (full collections, a turn between them). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return ref.deref() === undefined;
}

describe('createNodeHttpFetch', () => {
  it('sends method, headers and a string body, and returns status, headers and body', async () => {
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-echo': String(req.headers['x-test']) });
        res.end(JSON.stringify({ method: req.method, body }));
      });
    });
    const res = await createNodeHttpFetch()(`${url}/x`, { method: 'POST', headers: { 'x-test': 'yes' }, body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-echo')).toBe('yes');
    expect(await res.json()).toEqual({ method: 'POST', body: '{"a":1}' });
  });

  it('sends Host and Content-Length like Node would, and reuses one keep-alive connection', async () => {
    const seen: { host: string | undefined; length: string | undefined; encoding: string | undefined; port: number | undefined }[] = [];
    const url = await serve((req, res) => {
      seen.push({ host: req.headers.host, length: req.headers['content-length'], encoding: req.headers['transfer-encoding'], port: req.socket.remotePort });
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    const fetch = createNodeHttpFetch();
    await (await fetch(`${url}/a`, { method: 'POST', headers: new Headers({ 'content-type': 'application/json' }), body: '{"q":"é"}' })).text();
    await (await fetch(`${url}/b`, { method: 'POST' })).text();
    await (await fetch(`${url}/c`)).text();
    const host = new URL(url).host;
    expect(seen.map(({ host, length, encoding }) => ({ host, length, encoding }))).toEqual([
      { host, length: '10', encoding: undefined },
      { host, length: '0', encoding: undefined },
      { host, length: undefined, encoding: undefined },
    ]);
    expect(new Set(seen.map((s) => s.port)).size).toBe(1);
  });

  it('streams the body as it arrives', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: 2\n\n'), 20);
    });
    const res = await createNodeHttpFetch()(url);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: 1\n\n');
  });

  it('lets the end of a web body through after the reader stopped at its last message, and reuses the connection', async () => {
    // Ollama's client stops reading at its `done` chunk; the server ends the body a moment later.
    const ports: (number | undefined)[] = [];
    let ended!: () => void;
    const url = await serve((req, res) => {
      ports.push(req.socket.remotePort);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"done":true}\n');
      setTimeout(() => res.end(() => ended()), 30);
    });
    const fetchUpstream = createNodeHttpFetch();
    for (let i = 0; i < 2; i++) {
      const written = new Promise<void>((resolve) => (ended = resolve));
      const res = await fetchUpstream(url);
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"done":true}\n');
      // No more reads: the end must still reach the socket for it to go back to the pool.
      await written;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(ports).toHaveLength(2);
    expect(new Set(ports).size).toBe(1);
  });

  it('aborts the upstream request when the signal fires', async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((req, res) => {
      res.writeHead(200);
      res.write('start');
      req.socket.on('close', () => closed());
    });
    const controller = new AbortController();
    const res = await createNodeHttpFetch()(url, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort(new Error('client left'));
    await upstreamClosed;
    await expect(reader.read()).rejects.toThrow();
  });

  it('rejects with the abort reason when aborted before the response', async () => {
    const url = await serve(() => undefined);
    const controller = new AbortController();
    const pending = createNodeHttpFetch()(url, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('too slow')), 10);
    await expect(pending).rejects.toThrow('too slow');
  });
});

describe("createNodeHttpFetch and the caller's signal in init[FETCH_SIGNAL]", () => {
  /** A server that holds every request; resolves `closed` when a connection closes before its response ended. */
  const holding = async (answer?: (res: ServerResponse) => void) => {
    let cut!: () => void;
    const closed = new Promise<void>((resolve) => (cut = resolve));
    let received = 0;
    const url = await serve((req, res) => {
      received++;
      res.on('close', () => {
        if (!res.writableFinished) cut();
      });
      req.resume();
      answer?.(res);
    });
    return { url, closed, received: () => received };
  };
  const withSignal = (signal: AbortSignal, init: RequestInit = {}): RequestInit => ({ method: 'POST', body: '{}', ...init, [FETCH_SIGNAL]: signal }) as RequestInit;

  it('says it reads FETCH_SIGNAL', () => {
    expect(readsFetchSignal(createNodeHttpFetch())).toBe(true);
  });

  it("rejects with the signal's reason when aborted before the response, and cuts the upstream request", async () => {
    const upstream = await holding();
    const controller = new AbortController();
    const pending = createNodeHttpFetch()(upstream.url, withSignal(controller.signal, { signal: new AbortController().signal }));
    while (upstream.received() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('client left'));
    await expect(pending).rejects.toThrow('client left');
    await upstream.closed;
  });

  it('rejects with an AbortError for an abort without an Error reason', async () => {
    const upstream = await holding();
    const controller = new AbortController();
    const pending = createNodeHttpFetch()(upstream.url, withSignal(controller.signal));
    while (upstream.received() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort('a string');
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await upstream.closed;
  });

  it('refuses a value in init[FETCH_SIGNAL] that is not a signal before sending anything', async () => {
    const upstream = await holding();
    const fetch = createNodeHttpFetch();
    await expect(fetch(upstream.url, { method: 'POST', body: '{}', [FETCH_SIGNAL]: { aborted: false } } as RequestInit)).rejects.toThrow(TypeError);
    await expect(fetch(upstream.url, { method: 'POST', body: new URLSearchParams(), [FETCH_SIGNAL]: 'x' } as RequestInit)).rejects.toThrow(TypeError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(upstream.received()).toBe(0);
  });

  it('cuts the body when aborted mid-body', async () => {
    const upstream = await holding((res) => {
      res.writeHead(200);
      res.write('start');
    });
    const controller = new AbortController();
    const res = await createNodeHttpFetch()(upstream.url, withSignal(controller.signal));
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort(new Error('client left'));
    await upstream.closed;
    await expect(reader.read()).rejects.toThrow();
  });

  it('sends nothing when the signal is already aborted', async () => {
    const upstream = await holding();
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(createNodeHttpFetch()(upstream.url, withSignal(controller.signal))).rejects.toThrow('gone');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(upstream.received()).toBe(0);
  });

  it('leaves no listener on a long-lived signal once each request is done', async () => {
    const url = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    const fetch = createNodeHttpFetch();
    const caller = new AbortController();
    const own = new AbortController();
    for (let i = 0; i < 20; i++) await (await fetch(url, withSignal(caller.signal, { signal: own.signal }))).text();
    // The listeners go when the request closes, which follows the response's end.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(0);
  });

  it('honours the signal on the global-fetch path too (a body that is not a string or bytes)', async () => {
    const upstream = await holding();
    const controller = new AbortController();
    const pending = createNodeHttpFetch()(upstream.url, withSignal(controller.signal, { body: new URLSearchParams({ a: '1' }) }));
    while (upstream.received() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('client left'));
    await expect(pending).rejects.toThrow('client left');
    await upstream.closed;
  });

  it("keeps a Request's own signal on the global-fetch path when init.signal is not given", async () => {
    const upstream = await holding();
    const own = new AbortController();
    const request = new Request(upstream.url, { method: 'POST', body: '{}', signal: own.signal });
    const pending = createNodeHttpFetch()(request, { [FETCH_SIGNAL]: new AbortController().signal } as RequestInit);
    while (upstream.received() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    own.abort(new Error('request cancelled'));
    await expect(pending).rejects.toThrow('request cancelled');
    await upstream.closed;
  });
});

describe('rawRequestHeaders', () => {
  it("keeps the caller's headers and adds Host and the body's byte length", () => {
    expect(rawRequestHeaders(new Headers({ Authorization: 'Bearer k', 'X-A': '1' }), 'example.com:8080', 'POST', 'héllo')).toEqual([
      'authorization',
      'Bearer k',
      'x-a',
      '1',
      'host',
      'example.com:8080',
      'content-length',
      '6',
    ]);
  });

  it('leaves a Host or Content-Length the caller set, and frames a body-less POST but not a GET', () => {
    expect(rawRequestHeaders({ host: 'other', 'content-length': '2' }, 'example.com', 'PUT', 'ab')).toEqual(['content-length', '2', 'host', 'other']);
    expect(rawRequestHeaders(undefined, 'example.com', 'POST', undefined)).toEqual(['host', 'example.com', 'content-length', '0']);
    expect(rawRequestHeaders(undefined, 'example.com', 'GET', undefined)).toEqual(['host', 'example.com']);
    expect(rawRequestHeaders(undefined, 'example.com', 'POST', new Uint8Array(3))).toEqual(['host', 'example.com', 'content-length', '3']);
  });
});

describe('the web body of createNodeBody', () => {
  /** An IncomingMessage stand-in whose events the test fires by hand, in any order. */
  const socketLike = (): IncomingMessage => new Readable({ read: () => undefined }) as unknown as IncomingMessage;

  it('ignores every socket event after the reader cancelled (the SDK cancels at [DONE], then end arrives)', async () => {
    const res = socketLike();
    const reader = createNodeBody(res).web.getReader();
    // The body flows once read (the stream pulls after the read is asked for).
    const first = reader.read();
    await new Promise((resolve) => setImmediate(resolve));
    res.emit('data', Buffer.from('data: [DONE]\n\n'));
    expect(new TextDecoder().decode((await first).value)).toBe('data: [DONE]\n\n');
    await reader.cancel();
    expect(() => {
      res.emit('data', Buffer.from('late'));
      res.emit('end');
      res.emit('error', new Error('late reset'));
      res.emit('close');
    }).not.toThrow();
  });

  it('reads ahead up to 64 KiB without a pending read, then pauses the socket', async () => {
    const res = socketLike();
    const reader = createNodeBody(res).web.getReader();
    const first = reader.read();
    await new Promise((resolve) => setImmediate(resolve));
    res.emit('data', Buffer.from('a'));
    await first;
    res.emit('data', Buffer.alloc(40 * 1024));
    expect(res.isPaused()).toBe(false);
    res.emit('data', Buffer.alloc(40 * 1024));
    expect(res.isPaused()).toBe(true);
  });

  it('ignores events after the body ended or failed', async () => {
    for (const first of ['end', 'error', 'close'] as const) {
      const res = socketLike();
      const reader = createNodeBody(res).web.getReader();
      if (first === 'error') res.emit('error', new Error('reset'));
      else res.emit(first);
      expect(() => {
        res.emit('data', Buffer.from('x'));
        res.emit('end');
        res.emit('error', new Error('again'));
        res.emit('close');
      }).not.toThrow();
      if (first === 'end') expect((await reader.read()).done).toBe(true);
      else await expect(reader.read()).rejects.toThrow();
    }
  });
});

describe('createNodeHttpFetch against a misbehaving upstream', () => {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('survives a reader that cancels after [DONE] while the end of the body is still on its way', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"x":1}\n\n');
      setTimeout(() => res.write('data: [DONE]\n\n'), 20);
      setTimeout(() => res.end(), 30);
    });
    const fetchUpstream = createNodeHttpFetch();
    for (let i = 0; i < 5; i++) {
      const res = await fetchUpstream(url);
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('[DONE]')) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
    }
    await pause(50);
    const last = await fetchUpstream(url);
    expect(await last.text()).toContain('[DONE]');
  });

  it('errors the body when the connection is reset mid-stream', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.socket?.resetAndDestroy(), 20);
    });
    const res = await createNodeHttpFetch()(url);
    const reader = res.body!.getReader();
    await reader.read();
    await expect(reader.read()).rejects.toThrow();
  });

  it('errors the body when the connection closes before the body ended', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': '100' });
      res.write('data: 1\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const res = await createNodeHttpFetch()(url);
    await expect(res.text()).rejects.toThrow();
  });

  it('stops an upstream that goes silent mid-body after the idle timeout', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const res = await createNodeHttpFetch({ idleTimeoutMs: 100 })(url);
    const reader = res.body!.getReader();
    await reader.read();
    await expect(reader.read()).rejects.toThrow(/sent nothing/);
  });

  it('stops an upstream that never sends its headers after the idle timeout', async () => {
    const url = await serve(() => undefined);
    const failure = await createNodeHttpFetch({ idleTimeoutMs: 100 })(url).catch((error: unknown) => error);
    // Typed: the providers neither retry it nor report the upstream as unreachable.
    expect(UpstreamTimeoutError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ phase: 'headers', timeoutMs: 100, message: expect.stringMatching(/answered nothing within 100 ms/) as unknown });
  });

  it('reads a body trickled one byte at a time', async () => {
    const body = 'data: {"choices":[]}\n\ndata: [DONE]\n\n';
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const timer = setInterval(() => {
        if (i < body.length) res.write(body[i++]);
        else {
          clearInterval(timer);
          res.end();
        }
      }, 1);
    });
    const res = await createNodeHttpFetch({ idleTimeoutMs: 1000 })(url);
    expect(await res.text()).toBe(body);
  });
});

/** Reads a BodyReader to its end as text, counting the reads. */
async function readAll(reader: BodyReader): Promise<{ text: string; reads: number }> {
  const decoder = new TextDecoder();
  let text = '';
  let reads = 0;
  for (let parts = await reader.read(); parts !== undefined; parts = await reader.read()) {
    reads++;
    for (const part of parts) text += decoder.decode(part, { stream: true });
  }
  return { text, reads };
}

describe('the BodyReader of createNodeHttpFetch', () => {
  const socketLike = (): IncomingMessage => new Readable({ read: () => undefined }) as unknown as IncomingMessage;

  it('hands a streamed body to takeBodyReader without touching the web body, which then refuses', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: [DONE]\n\n'), 20);
    });
    const res = await createNodeHttpFetch()(url);
    const reader = takeBodyReader(res);
    expect(reader).toBeDefined();
    expect(takeBodyReader(res)).toBeUndefined();
    expect((await readAll(reader!)).text).toBe('data: 1\n\ndata: [DONE]\n\n');
    await expect(res.text()).rejects.toThrow();
  });

  it('has no BodyReader for a response without a body (204, HEAD), and its body stays null', async () => {
    const url = await serve((req, res) => {
      if (req.method === 'HEAD') res.writeHead(200, { 'content-type': 'application/json', 'content-length': '9' }).end();
      else res.writeHead(204).end();
    });
    const fetch = createNodeHttpFetch();
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(url, { method });
      expect(takeBodyReader(res)).toBeUndefined();
      expect(res.body).toBeNull();
      expect(await res.text()).toBe('');
    }
  });

  it('leaves the body to the web stream once that was read (the SDK reading an error body)', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"boom"}}');
    });
    const res = await createNodeHttpFetch()(url);
    expect(await res.text()).toBe('{"error":{"message":"boom"}}');
    expect(takeBodyReader(res)).toBeUndefined();
  });

  it('leaves no reader once the web body was handed out, and none after a cut before anything read', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: [DONE]\n\n');
    });
    const read = await createNodeHttpFetch()(url);
    const body = read.body!;
    expect(takeBodyReader(read)).toBeUndefined();
    expect(await new Response(body).text()).toBe('data: [DONE]\n\n');

    const cutURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.destroy(), 10);
    });
    const cut = await createNodeHttpFetch()(cutURL);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(takeBodyReader(cut)).toBeUndefined();
    await expect(new Response(cut.body).text()).rejects.toThrow();
  });

  it('gives every chunk that arrived since the last read in one read', async () => {
    const res = socketLike();
    const reader = createNodeBody(res).claim()!;
    res.emit('data', Buffer.from('a'));
    res.emit('data', Buffer.from('b'));
    res.emit('data', Buffer.from('c'));
    expect((await reader.read())?.map((part) => Buffer.from(part).toString())).toEqual(['a', 'b', 'c']);
    const waiting = reader.read();
    res.emit('data', Buffer.from('d'));
    expect((await waiting)?.map((part) => Buffer.from(part).toString())).toEqual(['d']);
    res.emit('end');
    expect(await reader.read()).toBeUndefined();
  });

  it('pauses the socket while the reader is 64 KiB behind, and resumes it on the next read', async () => {
    const res = socketLike();
    const reader = createNodeBody(res).claim()!;
    res.emit('data', Buffer.alloc(40 * 1024));
    expect(res.isPaused()).toBe(false);
    res.emit('data', Buffer.alloc(40 * 1024));
    expect(res.isPaused()).toBe(true);
    expect(await reader.read()).toHaveLength(2);
    expect(res.isPaused()).toBe(false);
  });

  it('rejects reads after a reset or a close before the end, and ignores later events', async () => {
    for (const how of ['error', 'close'] as const) {
      const res = socketLike();
      const reader = createNodeBody(res).claim()!;
      const waiting = reader.read();
      if (how === 'error') res.emit('error', new Error('reset'));
      else res.emit('close');
      await expect(waiting).rejects.toThrow(how === 'error' ? 'reset' : /closed before it ended/);
      await expect(reader.read()).rejects.toThrow();
      expect(() => {
        res.emit('data', Buffer.from('late'));
        res.emit('end');
        res.emit('error', new Error('again'));
      }).not.toThrow();
    }
  });

  it('cancel destroys the response, ends a pending read and ignores later events', async () => {
    const res = socketLike();
    const reader = createNodeBody(res).claim()!;
    const waiting = reader.read();
    reader.cancel();
    expect(await waiting).toBeUndefined();
    expect(res.destroyed).toBe(true);
    expect(await reader.read()).toBeUndefined();
    expect(() => res.emit('data', Buffer.from('late'))).not.toThrow();
  });

  it('errors the reader when the upstream is reset mid-stream, and times out a silent one', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      if (_req.url === '/reset') setTimeout(() => res.socket?.resetAndDestroy(), 20);
    });
    const fetchUpstream = createNodeHttpFetch({ idleTimeoutMs: 100 });
    const reset = takeBodyReader(await fetchUpstream(`${url}/reset`))!;
    await reset.read();
    await expect(reset.read()).rejects.toThrow();
    const silent = takeBodyReader(await fetchUpstream(`${url}/silent`))!;
    await silent.read();
    await expect(silent.read()).rejects.toThrow(/sent nothing/);
  });

  it('keeps neither the Response nor its promise while the body is read (an open stream holds only the body)', async () => {
    let finish: () => void = () => undefined;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      finish = () => res.end('data: [DONE]\n\n');
    });
    const fetchUpstream = createNodeHttpFetch({ idleTimeoutMs: 10_000 });
    // In a function of its own, so that no local of this test holds the response.
    const open = async (): Promise<{ reader: BodyReader; response: WeakRef<Response> }> => {
      const response = await fetchUpstream(url, { method: 'POST', body: '{"stream":true}', signal: new AbortController().signal });
      return { reader: takeBodyReader(response)!, response: new WeakRef(response) };
    };
    const { reader, response } = await open();
    expect(Buffer.from((await reader.read())![0]!).toString()).toBe('data: 1\n\n');
    expect(await collected(response)).toBe(true);
    // The body reads on to its end without it.
    finish();
    expect((await readAll(reader)).text).toBe('data: [DONE]\n\n');
  });
});
