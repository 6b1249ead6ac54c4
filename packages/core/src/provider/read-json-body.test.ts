import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readJsonBodyText } from './read-json-body.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server on 127.0.0.1 that writes `parts` of a chunked body and ends it only when `end` is set. */
async function serveBody(parts: string[], options: { end: boolean }): Promise<{ url: string; closed: Promise<void> }> {
  let onClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const part of parts) res.write(part);
    if (options.end) res.end();
    res.on('close', onClosed);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, closed };
}

describe('readJsonBodyText', () => {
  it('reads a body to its end', async () => {
    const { url } = await serveBody(['{"a":', '"é"}'], { end: true });
    expect(await readJsonBodyText(await fetch(url), { endGraceMs: 200 })).toBe('{"a":"é"}');
  });

  const hasChoices = (value: unknown): boolean => typeof value === 'object' && value !== null && 'choices' in value;

  it('takes a whole JSON value whose body never ends once it stalls, and closes the connection', async () => {
    const { url, closed } = await serveBody(['{"choices":[{"message":', '{"content":"Hello"}}]}'], { end: false });
    const text = await readJsonBodyText(await fetch(url), { endGraceMs: 200, isComplete: hasChoices });
    expect(JSON.parse(text)).toEqual({ choices: [{ message: { content: 'Hello' } }] });
    // The server sees its connection go: nothing is left open.
    await closed;
  }, 10_000);

  for (const [what, parts, isComplete] of [
    ['halfway through its JSON', ['{"choices":[{"message":'], hasChoices],
    ['after a whole value that is not a complete answer (an NDJSON line)', ['{"message":{"content":"The answer is"},"done":false}\n'], (v: unknown) => hasChoices(v)],
    ['after a whole value, when no isComplete is given', ['{"choices":[]}'], undefined],
    ['after a whole value, when isComplete throws', ['{"choices":[]}'], () => { throw new Error('bad predicate'); }],
  ] as const) it(`keeps waiting for a body that stalls ${what}`, async () => {
    const { url } = await serveBody([...parts], { end: false });
    const controller = new AbortController();
    const reading = readJsonBodyText(await fetch(url, { signal: controller.signal }), { endGraceMs: 100, isComplete });
    const outcome = await Promise.race([reading.then(() => 'read', () => 'failed'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]);
    expect(outcome).toBe('waiting');
    controller.abort();
    await expect(reading).rejects.toThrow();
  }, 10_000);

  it('reads a body that stalls after a value that is not a complete answer on to its end', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"done":false}\n');
      setTimeout(() => res.end('{"done":true}\n'), 400);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const isDone = (v: unknown): boolean => typeof v === 'object' && v !== null && (v as { done?: unknown }).done === true;
    expect(await readJsonBodyText(await fetch(url), { endGraceMs: 100, isComplete: isDone })).toBe('{"done":false}\n{"done":true}\n');
  }, 10_000);

  it('reads an empty body as empty text', async () => {
    expect(await readJsonBodyText(new Response(null), { endGraceMs: 100 })).toBe('');
    expect(await readJsonBodyText(new Response(''), { endGraceMs: 100 })).toBe('');
  });
});
