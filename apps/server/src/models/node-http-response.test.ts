import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { takeBodyReader } from '@toolwire/core/provider';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServed, serve } from '../../test/helpers/serve-handler.ts';
import { createNodeBody, createNodeHttpFetch } from './node-http-fetch.ts';
import { NodeHttpResponse, RawResponseHeaders } from './node-http-response.ts';

afterEach(closeServed);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Full collections, with turns of the event loop between them (vitest.shared.ts starts the workers with --expose-gc). */
async function collectGarbage(): Promise<void> {
  const gc =
    globalThis.gc ??
    ((): never => {
      throw new Error('globalThis.gc is missing: run the tests with --expose-gc (vitest.shared.ts passes it)');
    });
  await pause(20);
  gc();
  await pause(0);
  gc();
}

/** A response over a Node response from `url`; only a weak reference to the Node response leaves this function. */
function respond(url: string): Promise<{ response: NodeHttpResponse; upstream: WeakRef<IncomingMessage> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      resolve({ response: new NodeHttpResponse(res, { url, nullBody: false, body: createNodeBody }), upstream: new WeakRef(res) });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('RawResponseHeaders', () => {
  const raw = ['Content-Type', 'application/json', 'X-Request-Id', 'req_1', 'Set-Cookie', 'a=1', 'Vary', 'accept', 'set-cookie', 'b=2', 'vary', 'origin'];

  it('reads like the Headers a fetch response would have', () => {
    const ours = new RawResponseHeaders(raw);
    const reference = new Headers();
    for (let i = 0; i < raw.length; i += 2) reference.append(raw[i] as string, raw[i + 1] as string);
    for (const name of ['content-type', 'CONTENT-TYPE', 'x-request-id', 'vary', 'set-cookie', 'retry-after']) {
      expect(ours.get(name)).toBe(reference.get(name));
      expect(ours.has(name)).toBe(reference.has(name));
    }
    expect([...ours]).toEqual([...reference]);
    expect([...ours.entries()]).toEqual([...reference.entries()]);
    expect([...ours.keys()]).toEqual([...reference.keys()]);
    expect([...ours.values()]).toEqual([...reference.values()]);
    expect(ours.getSetCookie()).toEqual(reference.getSetCookie());
    const seen: string[] = [];
    ours.forEach((value, name, parent) => {
      expect(parent).toBe(ours);
      seen.push(`${name}=${value}`);
    });
    expect(seen).toEqual([...reference].map(([name, value]) => `${name}=${value}`));
    // What the SDKs do with response headers: copy them into their own.
    expect([...new Headers(ours)]).toEqual([...reference]);
  });

  it('iterates as a fetch Headers does whatever order and case the lines came in (repeated names, set-cookie)', () => {
    const lines: [string, string][] = [
      ['Content-Type', 'application/json'],
      ['x-b', '1'],
      ['X-A', '2'],
      ['Set-Cookie', 'a=1'],
      ['x-b', '3'],
      ['set-cookie', 'b=2'],
      ['X-B', '4'],
      ['x-a', '5'],
      ['Zeta', 'z'],
      ['a', ''],
    ];
    // Every rotation and its reverse: a deterministic spread of orders.
    for (let start = 0; start < lines.length; start++) {
      for (const order of [lines.slice(start).concat(lines.slice(0, start)), lines.slice(start).concat(lines.slice(0, start)).reverse()]) {
        const raw = order.flat();
        const reference = new Headers();
        for (const [name, value] of order) reference.append(name, value);
        expect([...new RawResponseHeaders(raw)]).toEqual([...reference]);
      }
    }
  });

  it('gives every iteration its own pairs: changing one changes no later iteration', () => {
    const headers = new RawResponseHeaders(raw);
    const first = [...headers.entries()];
    const pair = first[0] as [string, string];
    pair[1] = 'changed';
    expect([...headers.entries()][0]).toEqual(['content-type', 'application/json']);
    expect([...headers][0]).toEqual(['content-type', 'application/json']);
  });

  it('is immutable, as a fetch response’s headers are', () => {
    const headers = new RawResponseHeaders(['a', '1']);
    expect(() => headers.set()).toThrow(TypeError);
    expect(() => headers.append()).toThrow(TypeError);
    expect(() => headers.delete()).toThrow(TypeError);
  });
});

describe('NodeHttpResponse through createNodeHttpFetch', () => {
  it('has the members a fetch Response has', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'req_9' });
      res.end('{"a":1}');
    });
    const res = await createNodeHttpFetch()(`${url}/x?y=1`);
    expect(res).toBeInstanceOf(NodeHttpResponse);
    expect({ status: res.status, statusText: res.statusText, ok: res.ok, url: res.url, redirected: res.redirected, type: res.type, bodyUsed: res.bodyUsed }).toEqual({
      status: 201,
      statusText: 'Made',
      ok: true,
      url: `${url}/x?y=1`,
      redirected: false,
      type: 'basic',
      bodyUsed: false,
    });
    expect(res.headers.get('X-Request-Id')).toBe('req_9');
    expect(await res.json()).toEqual({ a: 1 });
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
  });

  it('lets go of the Node response once its body is read (the SDK keeps the response itself past the collections that would free it)', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.end('{"a":1}');
    });
    const { response, upstream } = await respond(url);
    expect(await response.json()).toEqual({ a: 1 });
    await collectGarbage();
    expect(upstream.deref()).toBeUndefined();
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
  });

  it('lets go of the Node response once a claimed body has closed, as after a direct read', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'close' });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: [DONE]\n\n'), 10);
    });
    const { response, upstream } = await respond(url);
    // In a function of its own, so that no local of this test holds the reader (which has the Node response).
    const readThrough = async (): Promise<string> => {
      const reader = takeBodyReader(response);
      let text = '';
      for (let parts = await reader?.read(); parts !== undefined; parts = await reader?.read()) for (const part of parts) text += Buffer.from(part).toString();
      return text;
    };
    expect(await readThrough()).toBe('data: 1\n\ndata: [DONE]\n\n');
    await collectGarbage();
    // The response is still here (the SDK keeps it); the Node response it streamed from is not.
    expect(upstream.deref()).toBeUndefined();
    expect(response.bodyUsed).toBe(true);
    expect(takeBodyReader(response)).toBeUndefined();
    await expect(new Response(response.body).text()).rejects.toThrow();
  });

  it('reads the body as text, bytes, an ArrayBuffer or a Blob, dropping a UTF-8 byte-order mark as fetch does', async () => {
    const payload = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"q":"é"}')]);
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(payload);
    });
    const fetchUpstream = createNodeHttpFetch();
    const viaFetch = async <T>(read: (r: Response) => Promise<T>): Promise<[T, T]> => {
      const ours = await fetchUpstream(url);
      const reference = await fetch(url);
      return [await read(ours), await read(reference)];
    };
    const [text, referenceText] = await viaFetch((r) => r.text());
    expect(text).toBe(referenceText);
    expect(text).toBe('{"q":"é"}');
    const [bytes, referenceBytes] = await viaFetch(async (r) => [...(await r.bytes())]);
    expect(bytes).toEqual(referenceBytes);
    const [buffer, referenceBuffer] = await viaFetch(async (r) => [...new Uint8Array(await r.arrayBuffer())]);
    expect(buffer).toEqual(referenceBuffer);
    const [blob, referenceBlob] = await viaFetch(async (r) => {
      const b = await r.blob();
      return [b.type, b.size];
    });
    expect(blob).toEqual(referenceBlob);
  });

  it('has no body on 204, 304 and HEAD, and keeps the connection usable', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/204') res.writeHead(204).end();
      else if (req.url === '/304') res.writeHead(304).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(req.method === 'HEAD' ? undefined : 'hello');
    });
    const fetchUpstream = createNodeHttpFetch();
    for (const [path, method] of [['/204', 'GET'], ['/304', 'GET'], ['/', 'HEAD']] as const) {
      const res = await fetchUpstream(`${url}${path}`, { method });
      expect(res.body).toBeNull();
      expect(await res.text()).toBe('');
    }
    expect(await (await fetchUpstream(url)).text()).toBe('hello');
  });

  it('hands out the body as a stream once asked, and then reads through it', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('one ');
      setTimeout(() => res.end('two'), 10);
    });
    const res = await createNodeHttpFetch()(url);
    const body = res.body;
    expect(res.body).toBe(body);
    expect(await res.text()).toBe('one two');
    const locked = await createNodeHttpFetch()(url);
    const reader = locked.body!.getReader();
    await reader.read();
    await expect(locked.text()).rejects.toThrow(TypeError);
  });

  it('clones like a Response: both copies read the whole body', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"n":2}');
    });
    const res = await createNodeHttpFetch()(url);
    const copy = res.clone();
    expect(copy.headers.get('content-type')).toBe('application/json');
    expect(await copy.json()).toEqual({ n: 2 });
    expect(await res.json()).toEqual({ n: 2 });
  });

  it('reads form data through a real Response', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' });
      res.end('a=1&b=two');
    });
    const form = await (await createNodeHttpFetch()(url)).formData();
    expect(form.get('b')).toBe('two');
  });

  it('reads a body that arrives slowly, in pieces', async () => {
    const body = JSON.stringify({ choices: [{ message: { content: 'x'.repeat(200) } }] });
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let i = 0;
      const timer = setInterval(() => {
        if (i < body.length) res.write(body.slice(i, (i += 7)));
        else {
          clearInterval(timer);
          res.end();
        }
      }, 1);
    });
    expect(await (await createNodeHttpFetch()(url)).text()).toBe(body);
  });

  it('rejects the read when the connection is cut before the body ends', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await expect((await createNodeHttpFetch()(url)).text()).rejects.toThrow();
  });

  it('rejects a read that starts after the connection was already cut', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.resetAndDestroy(), 5);
    });
    const res = await createNodeHttpFetch()(url);
    await pause(50);
    await expect(res.text()).rejects.toThrow();
    const again = await createNodeHttpFetch()(url);
    await pause(50);
    await expect(again.body!.getReader().read()).rejects.toThrow();
  });

  it('rejects the read with the idle-timeout error when the upstream goes silent mid-body', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
    });
    const res = await createNodeHttpFetch({ idleTimeoutMs: 100 })(url);
    await expect(res.text()).rejects.toThrow(/sent nothing/);
  });

  it('times out a request that stalls on a reused keep-alive connection, and the next request still gets through', async () => {
    let requests = 0;
    const ports: (number | undefined)[] = [];
    const url = await serve((req, res) => {
      requests++;
      ports.push(req.socket.remotePort);
      // The second request gets nothing; the others an answer.
      if (requests === 2) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"n":${requests}}`);
    });
    const fetchUpstream = createNodeHttpFetch({ idleTimeoutMs: 150 });
    expect(await (await fetchUpstream(url)).json()).toEqual({ n: 1 });
    await expect(fetchUpstream(url)).rejects.toThrow(/answered nothing within 150 ms/);
    expect(await (await fetchUpstream(url)).json()).toEqual({ n: 3 });
    // The stalled request ran on the first one's pooled connection.
    expect(ports[1]).toBe(ports[0]);
  });

  it('keeps the idle timeout on a reused connection whose last response hinted a shorter keep-alive', async () => {
    let requests = 0;
    const ports: (number | undefined)[] = [];
    const url = await serve(
      (req, res) => {
        requests++;
        ports.push(req.socket.remotePort);
        res.writeHead(200, { 'content-type': 'application/json' });
        // The second request's answer comes after longer than the hinted keep-alive.
        if (requests === 2) setTimeout(() => res.end('{"n":2}'), 1400);
        else res.end('{"n":1}');
      },
      // `Keep-Alive: timeout=2`: Node's agent then gives the pooled socket a 1 s timeout.
      (server) => (server.keepAliveTimeout = 2000),
    );
    const fetchUpstream = createNodeHttpFetch({ idleTimeoutMs: 5000 });
    const first = await fetchUpstream(url);
    expect(first.headers.get('keep-alive')).toBe('timeout=2');
    expect(await first.json()).toEqual({ n: 1 });
    expect(await (await fetchUpstream(url)).json()).toEqual({ n: 2 });
    expect(ports[1]).toBe(ports[0]);
  });

  it('stops reading and closes the upstream when the signal aborts mid-body', async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
      req.socket.on('close', () => closed());
    });
    const controller = new AbortController();
    const res = await createNodeHttpFetch()(url, { signal: controller.signal });
    const reading = res.text();
    controller.abort(new Error('client left'));
    await expect(reading).rejects.toThrow();
    await upstreamClosed;
  });
});

describe('the openai SDK over createNodeHttpFetch', () => {
  const completion = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, finish_reason: 'stop', logprobs: null }] };

  it('parses a completion and reports its request id', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_42' });
      res.end(JSON.stringify(completion));
    });
    const client = new OpenAI({ apiKey: 'k', baseURL: url, fetch: createNodeHttpFetch(), maxRetries: 0 });
    const { data, request_id } = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe('hi');
    expect(request_id).toBe('req_42');
  });

  it('throws the status error with the body and headers, and retries what the SDK retries', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      if (calls === 1) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after-ms': '1' });
        res.end(JSON.stringify({ error: { message: 'busy', type: 'server_error' } }));
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': 'req_bad' });
      res.end(JSON.stringify({ error: { message: 'bad field', type: 'invalid_request_error', param: 'x', code: 'bad' } }));
    });
    const client = new OpenAI({ apiKey: 'k', baseURL: url, fetch: createNodeHttpFetch(), maxRetries: 2 });
    const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('bad field');
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).headers?.get('x-request-id')).toBe('req_bad');
    expect(calls).toBe(2);
  });

  it('turns an abort while the body is on its way into the SDK’s abort error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
    const client = new OpenAI({ apiKey: 'k', baseURL: url, fetch: createNodeHttpFetch(), maxRetries: 0 });
    const controller = new AbortController();
    const pending = client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  it('fails a broken JSON body with a parse error rather than hanging', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "chatcmpl-1", "choices": [');
    });
    const client = new OpenAI({ apiKey: 'k', baseURL: url, fetch: createNodeHttpFetch(), maxRetries: 0 });
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(SyntaxError);
  });
});
