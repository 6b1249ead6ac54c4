import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { executeToolCall, ToolRegistry } from '@toolwire/core';
import type { Tool, ToolResult } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiTools } from '../src/index.ts';
import type { OpenApiToolsOptions } from '../src/index.ts';

// Every byte a model writes is hostile: it may try to set the credential itself, move the
// request to another path or host, or inject headers.
const KEY = 'key-0123456789';

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

let server: Server;
let origin: string;
const seen: Seen[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const document = {
  openapi: '3.1.0',
  info: { title: 'args', version: '1' },
  paths: {
    '/items/{id}': {
      post: {
        operationId: 'item',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          // Documents often declare their key as a parameter, besides (or instead of) a security scheme.
          { name: 'X-API-Key', in: 'header', required: true, schema: { type: 'string' } },
          { name: 'api_key', in: 'query', schema: { type: 'string' } },
          { name: 'X-Tenant', in: 'header', schema: { type: 'string' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          { name: 'body', in: 'query', schema: { type: 'string' } },
          { name: 'requestBody', in: 'query', schema: { type: 'string' } },
        ],
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { 200: { description: 'ok' } },
      },
    },
  },
};

async function itemTool(options: OpenApiToolsOptions): Promise<Tool[]> {
  return openApiTools(document, { baseURL: origin, allowPrivateNetwork: true, ...options });
}

async function call(tools: Tool[], args: Record<string, unknown>): Promise<ToolResult> {
  return executeToolCall({ id: 'call_1', name: 'item', arguments: args }, { registry: new ToolRegistry({ tools }) });
}

describe('arguments that try to set what the caller set', () => {
  it('leaves a header parameter named like the auth header out of the tool, and sends the key once', async () => {
    const tools = await itemTool({ auth: { type: 'header', name: 'x-api-key', value: KEY } });
    const schema = tools[0]!.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).not.toContain('X-API-Key');
    expect(schema.required).toEqual(['id']);
    const refused = await call(tools, { id: '1', 'X-API-Key': 'the-model-s-own-key' });
    expect(refused).toMatchObject({ success: false, error: { type: 'validation_error' } });
    const before = seen.length;
    expect(await call(tools, { id: '1' })).toMatchObject({ success: true });
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)!.headers['x-api-key']).toBe(KEY);
    expect(seen.at(-1)!.rawHeaders.filter((name) => name.toLowerCase() === 'x-api-key')).toHaveLength(1);
  });

  it('leaves a query parameter named like the query credential out of the tool', async () => {
    const tools = await itemTool({ auth: { type: 'query', name: 'api_key', value: KEY } });
    expect(Object.keys((tools[0]!.inputSchema as { properties: object }).properties)).not.toContain('api_key');
    await call(tools, { id: '1', 'X-API-Key': 'x' });
    expect(new URL(seen.at(-1)!.url, origin).searchParams.getAll('api_key')).toEqual([KEY]);
  });

  it('lets the static headers win over header parameters, whatever their case', async () => {
    const tools = await itemTool({ headers: { 'x-tenant': 'tenant-1' }, auth: { type: 'bearer', token: KEY } });
    expect(Object.keys((tools[0]!.inputSchema as { properties: object }).properties)).not.toContain('X-Tenant');
    await call(tools, { id: '1', 'X-API-Key': 'x' });
    expect(seen.at(-1)!.headers['x-tenant']).toBe('tenant-1');
    expect(seen.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('gives a parameter called requestBody, one called body and the body three arguments', async () => {
    const tools = await itemTool({});
    const properties = Object.keys((tools[0]!.inputSchema as { properties: object }).properties);
    expect(properties).toEqual(expect.arrayContaining(['body', 'requestBody', 'requestBody_2']));
    await call(tools, { id: '1', 'X-API-Key': 'x', body: 'q1', requestBody: 'q2', requestBody_2: { real: true } });
    const request = seen.at(-1)!;
    expect(new URL(request.url, origin).searchParams.get('body')).toBe('q1');
    expect(new URL(request.url, origin).searchParams.get('requestBody')).toBe('q2');
    expect(request.body).toBe('{"real":true}');
  });
});

describe('arguments that try to move the request', () => {
  it.each([
    ['//evil.example/', '/items/%2F%2Fevil.example%2F'],
    ['%2e%2e', '/items/%252e%252e'],
    ['..%2f..%2fadmin', '/items/..%252f..%252fadmin'],
    ['../admin', '/items/..%2Fadmin'],
    ['..\\admin', '/items/..%5Cadmin'],
    ['@evil.example', '/items/%40evil.example'],
    ['?x=1#frag', '/items/%3Fx%3D1%23frag'],
  ])('keeps %j inside one path segment of the same server', async (id, path) => {
    const tools = await itemTool({});
    expect(await call(tools, { id, 'X-API-Key': 'x' })).toMatchObject({ success: true });
    expect(seen.at(-1)!.url).toBe(path);
  });

  it('refuses "." and ".." as a path value, and line breaks, control characters or non-Latin-1 text in a header, sending nothing', async () => {
    const tools = await itemTool({});
    const before = seen.length;
    const headerValues = ['a\r\nX-Injected: 1', 'a\u0000b', '日本', '\u2028'];
    for (const args of [{ id: '..' }, { id: '.' }, ...headerValues.map((value) => ({ id: '1', 'X-Trace': value }))]) {
      expect(await call(tools, { 'X-API-Key': 'x', ...args })).toMatchObject({ success: false, error: { type: 'validation_error' } });
    }
    expect(seen.length).toBe(before);
  });

  // Found by fuzzing: the call threw URIError "URI malformed" out of execute.
  it('answers a lone surrogate in a path or query value with a validation error, sending nothing', async () => {
    const tools = await itemTool({});
    const before = seen.length;
    for (const args of [{ id: '\ud800' }, { id: '1', api_key: 'k\udfff' }]) {
      const result = await call(tools, { 'X-API-Key': 'x', ...args });
      expect(result).toMatchObject({ success: false, error: { type: 'validation_error' } });
      expect(result.message).toContain('not valid Unicode');
    }
    const direct = await tools[0]!.execute!({ id: '\ud800', 'X-API-Key': 'x' }, { toolCallId: 'c', signal: new AbortController().signal });
    expect(direct).toMatchObject({ success: false, errorType: 'validation_error' });
    expect(seen.length).toBe(before);
  });
});
