// The `openai` SDK's own log lines (it logs a garbled stream event before the provider turns
// it into a typed error): silent by default, into a given logger when asked, never with the key.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { collectStream, StreamError } from '@toolwire/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import type { OpenAISdkLogger } from '../src/index.ts';
import { responsesFrames } from './openai-test-server.ts';
import { useOpenAITestServer } from './openai-test-server.ts';

const server = useOpenAITestServer();
const API_KEY = 'sk-log-0123456789abcdefSECRET';
const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };

/** A Responses stream whose second event is not JSON. */
function garbled(): void {
  server().reply({ kind: 'sse', frames: [...responsesFrames([{ type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } } as never]), 'event: response.output_text.delta\ndata: {"type":"resp\n\n'] });
}

/** Everything written to stderr, stdout and the console while `run` runs. */
async function captureOutput(run: () => Promise<void>): Promise<string[]> {
  const written: string[] = [];
  const record = (...args: unknown[]) => {
    written.push(args.map(String).join(' '));
    return true;
  };
  const spies = [
    vi.spyOn(process.stderr, 'write').mockImplementation(record),
    vi.spyOn(process.stdout, 'write').mockImplementation(record),
    ...(['error', 'warn', 'info', 'debug', 'log'] as const).map((name) => vi.spyOn(console, name).mockImplementation(record)),
  ];
  try {
    await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return written;
}

function recordingLogger(lines: string[]): OpenAISdkLogger {
  const log = (level: string) => (message: string, ...rest: unknown[]) => lines.push(`${level} ${[message, ...rest].map(String).join(' ')}`);
  return { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the SDK's own log lines", () => {
  it('reach neither stderr nor the console by default; the garbled event is the typed error', async () => {
    vi.stubEnv('OPENAI_LOG', '');
    garbled();
    let error: unknown;
    const written = await captureOutput(async () => {
      error = await collectStream(createOpenAI({ baseURL: server().baseURL, apiKey: API_KEY, maxRetries: 0 }).responses('gpt-4.1-mini').stream(request)).catch((e: unknown) => e);
    });
    expect(StreamError.isInstance(error)).toBe(true);
    expect(written).toEqual([]);
  });

  it('go to a given logger, at warn and above by default', async () => {
    vi.stubEnv('OPENAI_LOG', '');
    garbled();
    const lines: string[] = [];
    const written = await captureOutput(async () => {
      await collectStream(createOpenAI({ baseURL: server().baseURL, apiKey: API_KEY, maxRetries: 0, logger: recordingLogger(lines) }).responses('gpt-4.1-mini').stream(request)).catch(
        () => undefined,
      );
    });
    expect(written).toEqual([]);
    expect(lines.some((line) => line.startsWith('error Could not parse message into JSON'))).toBe(true);
    expect(lines.every((line) => line.startsWith('error ') || line.startsWith('warn '))).toBe(true);
  });

  it('follow OPENAI_LOG when it is set, to the console as the SDK does by itself', async () => {
    vi.stubEnv('OPENAI_LOG', 'error');
    garbled();
    const written = await captureOutput(async () => {
      await collectStream(createOpenAI({ baseURL: server().baseURL, apiKey: API_KEY, maxRetries: 0 }).responses('gpt-4.1-mini').stream(request)).catch(() => undefined);
    });
    expect(written.some((line) => line.includes('Could not parse message into JSON'))).toBe(true);
  });

  it('never carry the API key, even at debug level (request details), and logLevel off silences a logger', async () => {
    vi.stubEnv('OPENAI_LOG', '');
    server().reply({ kind: 'error', status: 500, message: `upstream saw ${API_KEY}` }, { kind: 'error', status: 400, message: `bad key ${API_KEY}` });
    const lines: string[] = [];
    await createOpenAI({ baseURL: server().baseURL, apiKey: API_KEY, maxRetries: 1, logger: recordingLogger(lines), logLevel: 'debug' })
      .chat('gpt-4.1-mini')
      .generate(request)
      .catch(() => undefined);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(API_KEY.slice(4, 16));
    garbled();
    const quiet: string[] = [];
    await collectStream(createOpenAI({ baseURL: server().baseURL, apiKey: API_KEY, maxRetries: 0, logger: recordingLogger(quiet), logLevel: 'off' }).responses('gpt-4.1-mini').stream(request)).catch(
      () => undefined,
    );
    expect(quiet).toEqual([]);
  });

  it('never carry a credential in the details a structured logger prints (headers, an echoing error page), nor a per-request one', async () => {
    vi.stubEnv('OPENAI_LOG', '');
    const HEADER_TOKEN = 'tok-header-9f8e7d6c5b4a3210zz';
    const REQUEST_TOKEN = 'tok-request-0a1b2c3d4e5f6789yy';
    const page = `<a href="/retry?key=${API_KEY}&amp;token=${encodeURIComponent(HEADER_TOKEN)}">${REQUEST_TOKEN}</a>`;
    server().reply({ kind: 'error', status: 401, message: 'refused', headers: { 'x-echo-key': API_KEY, 'x-echo-token': REQUEST_TOKEN } });
    server().reply({ kind: 'text', status: 400, body: page, headers: { 'content-type': 'text/html' } });
    const lines: string[] = [];
    // As pino prints it: the details as JSON, Headers as their entries.
    const structured = (level: string) => (message: string, ...rest: unknown[]) =>
      lines.push(`${level} ${message} ${JSON.stringify(rest, (_key, value: unknown) => (value instanceof Headers ? Object.fromEntries(value) : value))}`);
    const provider = createOpenAI({
      baseURL: server().baseURL,
      apiKey: API_KEY,
      maxRetries: 0,
      headers: { 'X-Upstream-Token': HEADER_TOKEN },
      logger: { error: structured('error'), warn: structured('warn'), info: structured('info'), debug: structured('debug') },
      logLevel: 'debug',
    });
    const errors: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      await provider
        .chat('gpt-4.1-mini')
        .generate({ ...request, headers: { Authorization: `Bearer ${REQUEST_TOKEN}`, 'X-Request-Token': REQUEST_TOKEN } })
        .catch((error: unknown) => errors.push(error));
    }
    // The error of the page that echoes the request's own token too.
    expect((errors[1] as Error).message).toBe('400 <a href="/retry?key=[redacted]&amp;token=[redacted]">[redacted]</a>');
    expect(errors.map((error) => `${(error as Error).message} ${(error as Error).stack ?? ''}`).join(' ')).not.toContain(REQUEST_TOKEN.slice(4, 16));
    const all = lines.join('\n');
    expect(all).toContain('x-echo-key');
    expect(all).toContain('retry?key=');
    for (const secret of [API_KEY, HEADER_TOKEN, REQUEST_TOKEN]) {
      expect(all).not.toContain(secret.slice(4, 16));
      expect(all).not.toContain(encodeURIComponent(secret).slice(4, 16));
    }
  });

  it("never carry a request's own credential on concurrent requests, each with its own, echoed by the server", async () => {
    vi.stubEnv('OPENAI_LOG', '');
    // Echoes each request's own Authorization back in a page that is not JSON (the debug line's details carry it).
    const echo = createServer((req, res) => {
      const pause = Number(req.headers['x-pause'] ?? 0);
      setTimeout(() => {
        res.writeHead(400, { 'content-type': 'text/html', 'x-echo': req.headers.authorization ?? '' });
        res.end(`<p>refused ${req.headers.authorization ?? ''}</p>`);
      }, pause);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const lines: string[] = [];
      const structured = (level: string) => (message: string, ...rest: unknown[]) =>
        lines.push(`${level} ${message} ${JSON.stringify(rest, (_key, value: unknown) => (value instanceof Headers ? Object.fromEntries(value) : value))}`);
      const provider = createOpenAI({
        baseURL: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`,
        apiKey: API_KEY,
        maxRetries: 0,
        logger: { error: structured('error'), warn: structured('warn'), info: structured('info'), debug: structured('debug') },
        logLevel: 'debug',
      });
      const tokens = Array.from({ length: 8 }, (_, i) => `tok-request-${i}-0a1b2c3d4e5f6789`);
      // Answers in another order than the requests went out: each line comes while others are in flight.
      const errors = await Promise.all(
        tokens.map((token, i) =>
          provider
            .chat('gpt-4.1-mini')
            .generate({ ...request, headers: { Authorization: `Bearer ${token}`, 'x-pause': String((tokens.length - i) * 5) } })
            .then(
              () => undefined,
              (error: unknown) => error,
            ),
        ),
      );
      expect(lines.filter((line) => line.includes('refused [redacted]'))).toHaveLength(tokens.length);
      const all = `${lines.join('\n')}\n${errors.map((error) => inspect(error, { depth: null })).join('\n')}`;
      for (const token of tokens) expect(all).not.toContain(token.slice(4, 18));
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it('leave the stand-in key sent to a server that needs none readable in errors: it is no secret', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    server().reply({ kind: 'error', status: 401, message: 'Incorrect API key provided: no-api-key.' });
    const error = await createOpenAI({ baseURL: server().baseURL, maxRetries: 0 })
      .chat('gpt-4.1-mini')
      .generate(request)
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain('Incorrect API key provided: no-api-key');
  });

  it('refuses a log level the SDK does not know, naming the option', () => {
    expect(() => createOpenAI({ apiKey: API_KEY, logLevel: 'loud' as never })).toThrow('createOpenAI: logLevel must be one of off, error, warn, info, debug; got "loud".');
  });
});
