import { createScriptedModel } from '@toolwire/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolwireServer } from '../src/index.ts';
import { MAX_MODEL_NAME_LENGTH } from '../src/wire/request-fields.ts';
import { startGateway } from './helpers/start-gateway.ts';

// What a client chooses freely (model names, paths, methods) must not become state that
// grows with it: router cache entries, metric series, span names.

let running: ToolwireServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const json = { 'content-type': 'application/json' };

describe('model names a client chooses', () => {
  it('refuses a model name over the limit with a 400 before any provider sees it, on both APIs', async () => {
    const seen: string[] = [];
    const { server, baseURL } = await startGateway((id) => {
      seen.push(id);
      return createScriptedModel([{ text: 'ok' }, { text: 'ok' }]);
    });
    running = server;
    // A body of a few MiB is within the body limit; before the limit each such name was kept
    // by the router's cache (1000 of them: gigabytes) and named the model call's span.
    const long = `test/${'x'.repeat(3_000_000)}`;
    const chat = await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: json, body: JSON.stringify({ model: long, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(chat.status).toBe(400);
    const chatError = ((await chat.json()) as { error: { param: string; code: string; message: string } }).error;
    expect(chatError).toMatchObject({ param: 'model', code: 'invalid_value' });
    expect(chatError.message).toContain(`${MAX_MODEL_NAME_LENGTH}`);
    expect(chatError.message.length).toBeLessThan(300);
    const responses = await fetch(`${baseURL}/responses`, { method: 'POST', headers: json, body: JSON.stringify({ model: long, input: 'hi' }) });
    expect(responses.status).toBe(400);
    expect(((await responses.json()) as { error: { param: string; code: string } }).error).toMatchObject({ param: 'model', code: 'invalid_value' });
    expect(seen).toEqual([]);

    // A name at the limit is routed as before.
    const longest = `test/${'y'.repeat(MAX_MODEL_NAME_LENGTH - 'test/'.length)}`;
    const ok = await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: json, body: JSON.stringify({ model: longest, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(ok.status).toBe(200);
    expect(seen).toEqual([longest.slice('test/'.length)]);
  });

  it('keeps /metrics to bounded label values whatever models, paths and methods clients send', async () => {
    const { server, baseURL, origin } = await startGateway(createScriptedModel(Array.from({ length: 300 }, () => ({ text: 'ok' }))), { metrics: { enabled: true } });
    running = server;
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
    for (let i = 0; i < 300; i++) {
      const model = i % 2 === 0 ? `test/model-${i}` : `nope-${i}/m`;
      await (await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: json, body: JSON.stringify({ model, user: `user-${i}`, messages: [{ role: 'user', content: 'hi' }] }) })).arrayBuffer();
      await (await fetch(`${origin}/path-${i}/${'z'.repeat(i)}?q=${i}`, { method: methods[i % methods.length] ?? 'GET' })).arrayBuffer();
    }
    const text = await (await fetch(`${origin}/metrics`)).text();
    expect(text).not.toMatch(/model-\d|nope-\d|user-\d|path-\d/);
    const requestSeries = text.split('\n').filter((line) => line.startsWith('toolwire_http_requests_total{'));
    // Routes, methods and statuses: a handful of series, not one per request.
    expect(requestSeries.length).toBeLessThan(20);
    expect(text.length).toBeLessThan(20_000);
  });
});
