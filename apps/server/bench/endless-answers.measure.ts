// What an answer without end costs, path by path: a stand-in upstream on 127.0.0.1 streams
// one answer at full speed in realistic small deltas (5-50 bytes of content per event) and
// never finishes it; every 2 MiB of content it pauses, collects garbage twice and samples
// the heap. "Held per byte" is the heap's growth over the content streamed (a slope over the
// samples from 4 MiB on), so a path that forwards and forgets shows ~0, and one that holds
// the answer shows what it costs per byte. Each case runs in its own process.
//
// In apps/server:
//   node --conditions=@toolwire/source --expose-gc bench/endless-answers.measure.ts            (every case, limits off, then on)
//   node --conditions=@toolwire/source --expose-gc bench/endless-answers.measure.ts PATH SHAPE [off|on] [MiB]
// `off` turns the answer limits off (0), `on` leaves their defaults. Not a `.bench.ts`: it
// measures memory, not speed, and takes minutes.
import { spawnSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineTool, runTools, runToolsStream } from '@toolwire/core';
import type { ChatModel, ChatRequest } from '@toolwire/core';
import { createOllama } from '@toolwire/provider-ollama';
import { createOpenAI } from '@toolwire/provider-openai';
import { pino } from 'pino';
import { drainedOrClosed } from '../../../test/endless-answer.ts';
import { createServer } from '../src/index.ts';

const MIB = 1024 * 1024;
const STEP = Number(process.env["ENDLESS_STEP_MIB"] ?? 2) * MIB;

/** The answer shapes the stand-in streams (content never ends). */
const SHAPES = {
  // Chat Completions (SSE).
  text: 'plain text',
  reasoning: 'reasoning_content forever',
  'json-call-text': 'a JSON call object written in content, never closed (native tools offered)',
  hermes: '<tool_call>{… never closed (text tools)',
  python: 'f(a="… never closed (text tools)',
  'qwen-xml': '<tool_call><function=…><parameter=…> never closed (text tools)',
  harmony: 'harmony commentary to=functions.f, never closed (text tools)',
  think: '<think> never closed (text tools)',
  args: "one native call's arguments forever",
  calls: 'new native calls forever (index 0, 1, 2, …)',
  body: 'a non-streamed JSON answer without end',
  // Responses API (SSE).
  'r-args': 'response.function_call_arguments.delta forever',
  'r-text': 'response.output_text.delta forever',
  // Ollama (NDJSON).
  'o-text': 'message.content forever',
  'o-thinking': 'message.thinking forever',
  'o-calls': 'a new message.tool_calls entry on every line',
  'o-hermes': '<tool_call>{… never closed (text-only model)',
} as const;
type Shape = keyof typeof SHAPES;

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua '.repeat(4);
let seed = 1;
/** 5-50 bytes of letters and spaces (nothing that could close a call). */
function piece(): string {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  const length = 5 + (seed % 46);
  const start = seed % 200;
  return WORDS.slice(start, start + length);
}

const chunkBase = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":';
const chatEvent = (delta: unknown): string => `data: ${chunkBase}${JSON.stringify(delta)},"finish_reason":null}]}\n\n`;
const sse = (event: unknown): string => `data: ${JSON.stringify(event)}\n\n`;
const ndjson = (message: unknown): string => `${JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', message, done: false })}\n`;

interface Pour {
  head: string;
  /** The next event and the content bytes it carries. */
  next(i: number): [string, number];
}

function pourFor(shape: Shape, tool: string): Pour {
  const content = (prefix: string): Pour => ({
    head: chatEvent({ role: 'assistant', content: prefix }),
    next: () => {
      const p = piece();
      return [chatEvent({ content: p }), p.length];
    },
  });
  switch (shape) {
    case 'text':
      return content('');
    case 'json-call-text':
      return content(`{"name": "${tool}", "arguments": {"q": "`);
    case 'hermes':
      return content(`<tool_call>\n{"name": "${tool}", "arguments": {"q": "`);
    case 'python':
      return content(`${tool}(q="`);
    case 'qwen-xml':
      return content(`<tool_call>\n<function=${tool}>\n<parameter=q>\n`);
    case 'harmony':
      return content(`<|start|>assistant<|channel|>commentary to=functions.${tool} <|constrain|>json<|message|>{"q": "`);
    case 'think':
      return content('<think>');
    case 'reasoning':
      return {
        head: chatEvent({ role: 'assistant', content: '' }),
        next: () => {
          const p = piece();
          return [chatEvent({ reasoning_content: p }), p.length];
        },
      };
    case 'args':
      return {
        head: chatEvent({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: tool, arguments: '{"q": "' } }] }),
        next: () => {
          const p = piece();
          return [chatEvent({ tool_calls: [{ index: 0, function: { arguments: p } }] }), p.length];
        },
      };
    case 'calls':
      return {
        head: chatEvent({ role: 'assistant', content: null }),
        next: (i) => {
          const args = `{"q": "${piece()}"}`;
          return [chatEvent({ tool_calls: [{ index: i, id: `call_${i}`, type: 'function', function: { name: tool, arguments: args } }] }), args.length];
        },
      };
    case 'body':
      return {
        head: '{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"',
        next: () => {
          const p = piece();
          return [p, p.length];
        },
      };
    case 'r-args':
      return {
        head:
          sse({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', created_at: 1, model: 'm', status: 'in_progress', output: [] } }) +
          sse({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: tool, arguments: '', status: 'in_progress' } }),
        next: (i) => {
          const p = piece();
          return [sse({ type: 'response.function_call_arguments.delta', sequence_number: i + 2, item_id: 'fc_1', output_index: 0, delta: p }), p.length];
        },
      };
    case 'r-text':
      return {
        head:
          sse({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', created_at: 1, model: 'm', status: 'in_progress', output: [] } }) +
          sse({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] } }),
        next: (i) => {
          const p = piece();
          return [sse({ type: 'response.output_text.delta', sequence_number: i + 2, item_id: 'msg_1', output_index: 0, content_index: 0, delta: p }), p.length];
        },
      };
    case 'o-text':
    case 'o-hermes': {
      const prefix = shape === 'o-hermes' ? `<tool_call>\n{"name": "${tool}", "arguments": {"q": "` : '';
      return {
        head: ndjson({ role: 'assistant', content: prefix }),
        next: () => {
          const p = piece();
          return [ndjson({ role: 'assistant', content: p }), p.length];
        },
      };
    }
    case 'o-thinking':
      return {
        head: '',
        next: () => {
          const p = piece();
          return [ndjson({ role: 'assistant', content: '', thinking: p }), p.length];
        },
      };
    case 'o-calls':
      return {
        head: '',
        next: () => {
          const p = piece();
          return [ndjson({ role: 'assistant', content: '', tool_calls: [{ function: { name: tool, arguments: { q: p } } }] }), p.length + 8];
        },
      };
  }
}

interface Sample {
  contentMiB: number;
  heapMiB: number;
  rssMiB: number;
}

function sample(content: number): Sample {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const memory = process.memoryUsage();
  return { contentMiB: content / MIB, heapMiB: memory.heapUsed / MIB, rssMiB: memory.rss / MIB };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The stand-in: streams `shape` until `maxContent` bytes of content or the client goes. */
async function startUpstream(shape: Shape, maxContent: number): Promise<{ url: string; samples: Sample[]; content: () => number; closedEarly: () => boolean; close: () => void }> {
  const samples: Sample[] = [];
  let content = 0;
  let closedEarly = false;
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/api/show') {
        const native = !body.includes('text-model');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: native ? ['completion', 'tools'] : ['completion'] }));
        return;
      }
      const request = JSON.parse(body) as { stream?: boolean; tools?: { name?: string; function?: { name?: string } }[] };
      const offered = request.tools?.[0];
      const tool = offered?.function?.name ?? offered?.name ?? 'lookup';
      const pour = pourFor(shape, tool);
      const streamed = request.stream !== false && shape !== 'body';
      const type = req.url?.startsWith('/api/') ? (streamed ? 'application/x-ndjson' : 'application/json') : streamed ? 'text/event-stream' : 'application/json';
      res.writeHead(200, { 'content-type': type });
      res.on('close', () => {
        if (!res.writableFinished) closedEarly = true;
      });
      void (async () => {
        res.write(pour.head);
        let nextSample = STEP;
        let i = 0;
        while (content < maxContent && !res.destroyed) {
          // About 64 events per write, as a server's socket batches them.
          let batch = '';
          for (let k = 0; k < 64; k++) {
            const [event, bytes] = pour.next(i++);
            batch += event;
            content += bytes;
          }
          const ok = res.write(batch);
          if (content >= nextSample) {
            // Let the client take what is in flight, then sample.
            for (let k = 0; k < 20; k++) await tick();
            samples.push(sample(content));
            if (process.env["ENDLESS_DEBUG"] !== undefined) console.error(JSON.stringify(samples.at(-1)));
            nextSample += STEP;
          }
          if (!ok && res.writableNeedDrain) {
            await drainedOrClosed(res);
          }
        }
        res.end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    samples,
    content: () => content,
    closedEarly: () => closedEarly,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const lookup = defineTool({ name: 'lookup', description: 'Looks a word up.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } });
const request: ChatRequest = { messages: [{ role: 'user', content: 'go' }], tools: [lookup] };

/** The limits option of the providers and runTools: off (0) or their defaults. */
function limitOptions(on: boolean): Record<string, number> {
  return on ? {} : { maxAnswerChars: 0, maxToolCallsPerAnswer: 0 };
}

async function drain(model: ChatModel): Promise<string> {
  for await (const event of model.stream(request)) if (event.type === 'error') throw event.error;
  return 'finished';
}

async function gatewayCall(url: string, on: boolean, api: 'chat' | 'responses', stream: boolean, serverTools: boolean, model: string): Promise<string> {
  const gateway = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${url}/v1`, apiKey: 'sk-upstream' }, ollama: { host: url } },
    tools: { builtins: ['calculate'] },
    limits: on ? {} : ({ upstreamAnswerLimitChars: 0, upstreamAnswerToolCallLimit: 0 }),
  });
  const base = await gateway.listen({ port: 0, host: '127.0.0.1' });
  try {
    const tools =
      api === 'chat'
        ? [serverTools ? { type: 'function', function: { name: 'calculate' } } : { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }]
        : [serverTools ? { type: 'function', name: 'calculate' } : { type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];
    const body = api === 'chat' ? { model, stream, messages: [{ role: 'user', content: 'go' }], tools } : { model, stream, input: 'go', tools };
    const response = await fetch(`${base}/${api === 'chat' ? 'chat/completions' : 'responses'}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    let tail = '';
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      tail = (tail + decoder.decode(read.value, { stream: true })).slice(-600);
    }
    const code = /"code":\s*"([a-z_]+)"/u.exec(tail)?.[1];
    return `${response.status}${code === undefined ? '' : ` ${code}`}`;
  } finally {
    await gateway.close();
  }
}

/** The paths an answer takes, by name. */
const PATHS: Record<string, { shapes: Shape[]; run: (url: string, on: boolean) => Promise<string> }> = {
  'openai-chat stream': { shapes: ['text', 'reasoning', 'json-call-text', 'args', 'calls'], run: (url, on) => drain(createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', ...limitOptions(on) }).chat('m')) },
  'openai-chat text tools stream': {
    shapes: ['hermes', 'python', 'qwen-xml', 'harmony', 'think'],
    run: (url, on) => drain(createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', ...limitOptions(on) }).chat('m', { textTools: true })),
  },
  'openai-chat generate': { shapes: ['body'], run: async (url, on) => (await createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', maxRetries: 0, ...limitOptions(on) }).chat('m').generate(request)).finishReason },
  'openai-responses stream': { shapes: ['r-args', 'r-text'], run: (url, on) => drain(createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', ...limitOptions(on) }).responses('m')) },
  'ollama native stream': { shapes: ['o-text', 'o-thinking', 'o-calls'], run: (url, on) => drain(createOllama({ host: url, ...limitOptions(on) }).chat('native-model')) },
  'ollama text-only stream': { shapes: ['o-hermes'], run: (url, on) => drain(createOllama({ host: url, ...limitOptions(on) }).chat('text-model')) },
  'runToolsStream (openai-chat)': {
    shapes: ['text', 'args', 'hermes'],
    run: async (url, on) => {
      const openai = createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', ...limitOptions(on) });
      const model = openai.chat('m', { textTools: true });
      const run = runToolsStream({ model, messages: request.messages, tools: [lookup], ...limitOptions(on) });
      for await (const event of run) if (event.type === 'error') throw event.error;
      return (await run.result).stoppedBy;
    },
  },
  'runTools (openai-chat generate)': {
    shapes: ['body'],
    run: async (url, on) => (await runTools({ model: createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', maxRetries: 0, ...limitOptions(on) }).chat('m'), messages: request.messages, tools: [lookup], ...limitOptions(on) })).stoppedBy,
  },
  'gateway chat stream, client tools': { shapes: ['text', 'args', 'calls'], run: (url, on) => gatewayCall(url, on, 'chat', true, false, 'openai/m') },
  'gateway chat stream, server tools': { shapes: ['text', 'args'], run: (url, on) => gatewayCall(url, on, 'chat', true, true, 'openai/m') },
  'gateway chat non-stream, client tools': { shapes: ['body'], run: (url, on) => gatewayCall(url, on, 'chat', false, false, 'openai/m') },
  'gateway responses stream, client tools': { shapes: ['text', 'args'], run: (url, on) => gatewayCall(url, on, 'responses', true, false, 'openai/m') },
  'gateway responses stream, server tools': { shapes: ['text', 'args'], run: (url, on) => gatewayCall(url, on, 'responses', true, true, 'openai/m') },
  'gateway responses non-stream': { shapes: ['body'], run: (url, on) => gatewayCall(url, on, 'responses', false, false, 'openai/m') },
  'gateway chat stream, ollama text-only': { shapes: ['o-hermes', 'o-text'], run: (url, on) => gatewayCall(url, on, 'chat', true, false, 'ollama/text-model') },
  'gateway chat stream, ollama native': { shapes: ['o-calls', 'o-thinking'], run: (url, on) => gatewayCall(url, on, 'chat', true, false, 'ollama/native-model') },
};

interface CaseReport {
  path: string;
  shape: Shape;
  limits: 'off' | 'on';
  outcome: string;
  streamedMiB: number;
  heldPerByte: number | undefined;
  peakHeapMiB: number;
  upstreamClosed: boolean;
  afterHeapMiB: number;
}

async function runCase(path: string, shape: Shape, on: boolean, maxMiB: number): Promise<CaseReport> {
  const upstream = await startUpstream(shape, maxMiB * MIB);
  const entry = PATHS[path];
  if (entry === undefined) throw new Error(`no path ${path}`);
  const before = sample(0);
  const debug = process.env['ENDLESS_DEBUG'] === undefined ? undefined : setInterval(() => console.error('content', upstream.content()), 1000);
  let outcome: string;
  try {
    outcome = await entry.run(upstream.url, on);
  } catch (error) {
    const e = error as Error & { code?: string };
    outcome = `${e.name}${e.code === undefined ? '' : ` ${e.code}`}`;
  }
  if (debug !== undefined) clearInterval(debug);
  const samples = upstream.samples.filter((s) => s.contentMiB >= 4);
  const first = samples[0];
  const last = samples.at(-1);
  const heldPerByte = first !== undefined && last !== undefined && last !== first ? (last.heapMiB - first.heapMiB) / (last.contentMiB - first.contentMiB) : undefined;
  const peak = Math.max(before.heapMiB, ...upstream.samples.map((s) => s.heapMiB));
  const streamedMiB = upstream.content() / MIB;
  for (let k = 0; k < 20; k++) await tick();
  // Timers the request left (an end grace, a keep-alive socket) get their time.
  await new Promise((resolve) => setTimeout(resolve, Number(process.env['ENDLESS_AFTER_MS'] ?? 0)));
  const after = sample(upstream.content());
  upstream.close();
  return {
    path,
    shape,
    limits: on ? 'on' : 'off',
    outcome,
    streamedMiB,
    heldPerByte,
    peakHeapMiB: peak - before.heapMiB,
    upstreamClosed: upstream.closedEarly(),
    afterHeapMiB: after.heapMiB - before.heapMiB,
  };
}

const [path, shape, mode, mib] = process.argv.slice(2);
if (path !== undefined && shape !== undefined) {
  const report = await runCase(path, shape as Shape, mode === 'on', Number(mib ?? 48));
  console.log(JSON.stringify(report));
  process.exit(0);
} else {
  const only = process.env['ENDLESS_ONLY'];
  const rows: string[] = ['| path | shape | limits | outcome | streamed MiB | held per byte | peak heap MiB | upstream cut | heap after MiB |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
  for (const mode of ['off', 'on'] as const) {
    for (const [name, { shapes }] of Object.entries(PATHS)) {
      if (only !== undefined && !name.includes(only)) continue;
      for (const s of shapes) {
        const run = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, name, s, mode, mode === 'on' ? '48' : s.endsWith('calls') ? '4' : '32'], { encoding: 'utf8', timeout: 120_000 });
        const line = run.stdout.trim().split('\n').at(-1) ?? '';
        let row: string;
        try {
          const r = JSON.parse(line) as CaseReport;
          row = `| ${r.path} | ${r.shape} | ${r.limits} | ${r.outcome} | ${r.streamedMiB.toFixed(1)} | ${r.heldPerByte === undefined ? '-' : r.heldPerByte.toFixed(2)} | ${r.peakHeapMiB.toFixed(0)} | ${r.upstreamClosed ? 'yes' : 'no'} | ${r.afterHeapMiB.toFixed(0)} |`;
        } catch {
          row = `| ${name} | ${s} | ${mode} | failed: ${(run.stderr || line).trim().split('\n').slice(-3).join(' ').slice(0, 200)} | | | | | |`;
        }
        console.log(row);
        rows.push(row);
      }
    }
  }
  console.log(`\n${rows.join('\n')}\n\nShapes:\n${Object.entries(SHAPES).map(([name, what]) => `- ${name}: ${what}`).join('\n')}`);
}
