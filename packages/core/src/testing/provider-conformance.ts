import {
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderServerError,
  ProviderToolMismatchError,
  RateLimitError,
} from '../errors.ts';
import type { ProviderError } from '../errors.ts';
import { collectStream } from '../collect-stream.ts';
import type { ChatModel } from '../types/chat-model.ts';
import type { ChatRequest } from '../types/chat-request.ts';
import type { ChatResponse } from '../types/chat-response.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import type { FunctionToolSpec } from '../types/tool.ts';
import type { ProviderTool } from '../types/provider-tool.ts';
import { startConformanceServer } from './conformance-server.ts';
import type { ConformanceRequest, ConformanceServer, ReplyPacing, WireReply } from './conformance-server.ts';
import { ConformanceError } from './testing-errors.ts';

/** Token counts a scenario reports. */
export interface ConformanceUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What the model "says" in one check; the provider's wire format renders it. */
export type ConformanceScenario =
  | { type: 'text'; text: string; finish: 'stop' | 'length'; usage: ConformanceUsage }
  | { type: 'tool-calls'; calls: { id: string; name: string; arguments: string }[]; usage: ConformanceUsage }
  | { type: 'error'; status: number; message: string; code?: string; retryAfterSeconds?: number };

/** A provider's wire format, as the conformance server speaks it. */
export interface ConformanceWire {
  /** Whether this request asks for a streamed answer. */
  isStream: (request: ConformanceRequest) => boolean;
  /** The whole answer to `request` for `scenario`: one JSON body, or the full stream text (the suite paces it). */
  render: (scenario: ConformanceScenario, options: { stream: boolean; request: ConformanceRequest }) => WireReply;
}

/** Options of `createProviderConformanceSuite`. */
export interface ProviderConformanceOptions {
  /** The `provider` name the models and their errors carry. */
  provider: string;
  /** A model of the provider pointed at the local server (`server.url`), with retries off. */
  createModel: (server: { url: string }) => ChatModel;
  wire: ConformanceWire;
  /** A model on the same server that calls tools through text (prompted tools), when the provider has that mode. */
  createTextToolsModel?: (server: { url: string }) => ChatModel;
  /** HTTP statuses whose error class is checked (default 400, 401, 403, 404, 429, 500). */
  errorStatuses?: readonly number[];
  /** `false` when the wire carries arguments as objects (Ollama): the unparseable-arguments check is left out. */
  argumentText?: boolean;
  /** Chunk sizes (characters) the streamed answers are cut into (default 1, 7, 64 and whole). */
  chunkSizes?: readonly number[];
}

/** One check: a name for the test runner and the function that throws `ConformanceError` when the provider is off. */
export interface ConformanceCheck {
  name: string;
  run: () => Promise<void>;
}

/** The checks, and the server they share (start it before, stop it after). */
export interface ProviderConformanceSuite {
  checks: ConformanceCheck[];
  setup: () => Promise<void>;
  teardown: () => Promise<void>;
}

const weather: FunctionToolSpec = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const time: FunctionToolSpec = {
  type: 'function',
  name: 'get_time',
  description: 'The time in a zone.',
  inputSchema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};

const TEXT: ConformanceScenario = { type: 'text', text: 'Paris is sunny today, 18 degrees and a light breeze.', finish: 'stop', usage: { inputTokens: 21, outputTokens: 13 } };
const CALLS: ConformanceScenario = {
  type: 'tool-calls',
  calls: [
    { id: 'call_conf_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_conf_2', name: 'get_time', arguments: '{"zone":"Europe/Paris"}' },
  ],
  usage: { inputTokens: 40, outputTokens: 22 },
};

/**
 * The `ChatModel` contract as checks a provider package runs against its own wire format:
 * text and usage, finish reasons, native tool calls (and text tools when the provider has
 * them), unparseable arguments as invalid calls, streaming under every chunking with the
 * stream contract (one terminal event, last; a call goes start → deltas → call), abort,
 * each error class, and provider-tool rejection before any request.
 *
 * @example
 * const suite = createProviderConformanceSuite({ provider: 'acme', createModel: ({ url }) => createAcme({ baseURL: url }).chat('m'), wire: acmeWire });
 * beforeAll(suite.setup); afterAll(suite.teardown);
 * for (const check of suite.checks) it(check.name, check.run);
 */
export function createProviderConformanceSuite(options: ProviderConformanceOptions): ProviderConformanceSuite {
  let server: ConformanceServer | undefined;
  const chunkSizes = options.chunkSizes ?? [1, 7, 64, 0];
  const live = (): ConformanceServer => {
    if (!server) throw new ConformanceError({ check: 'setup', problem: 'call suite.setup() (beforeAll) before the checks.' });
    return server;
  };
  const serve = (scenario: ConformanceScenario, pacing: ReplyPacing = {}): void => {
    live().handle((request) => {
      const stream = options.wire.isStream(request);
      return { reply: options.wire.render(scenario, { stream, request }), pacing: stream ? pacing : {} };
    });
  };
  const model = (): ChatModel => options.createModel({ url: live().url });
  const checks: ConformanceCheck[] = [];
  const add = (name: string, run: (fail: (problem: string) => never) => Promise<void>): void => {
    checks.push({
      name,
      run: () =>
        run((problem) => {
          throw new ConformanceError({ check: name, problem });
        }),
    });
  };

  add('answers text with its usage and finish reason (generate)', async (fail) => {
    serve(TEXT);
    const response = await model().generate({ messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expectText(response, fail);
    if (model().provider !== options.provider) fail(`model.provider is "${model().provider}", expected "${options.provider}".`);
  });

  for (const size of chunkSizes) {
    const label = size === 0 ? 'in one piece' : `in pieces of ${size}`;
    add(`streams text ${label}`, async (fail) => {
      serve(TEXT, size === 0 ? {} : { chunkSize: size });
      const events = await drain(model().stream({ messages: [{ role: 'user', content: 'Weather in Paris?' }] }));
      checkContract(events, fail);
      expectText(await responseOf(events, fail), fail);
    });
    add(`streams tool calls ${label}`, async (fail) => {
      serve(CALLS, size === 0 ? {} : { chunkSize: size });
      const events = await drain(model().stream({ messages: [{ role: 'user', content: 'Weather and time in Paris?' }], tools: [weather, time] }));
      checkContract(events, fail);
      expectCalls(await responseOf(events, fail), fail);
    });
  }

  add('returns native tool calls with parsed arguments (generate)', async (fail) => {
    serve(CALLS);
    expectCalls(await model().generate({ messages: [{ role: 'user', content: 'Weather and time in Paris?' }], tools: [weather, time] }), fail);
  });

  if (options.argumentText !== false) {
    add('turns unparseable argument text into an invalid call, not a failure', async (fail) => {
      serve({ type: 'tool-calls', calls: [{ id: 'call_conf_bad', name: 'get_weather', arguments: '{"city": "Par' }], usage: { inputTokens: 5, outputTokens: 5 } });
      const response = await model().generate({ messages: [{ role: 'user', content: 'Weather?' }], tools: [weather] });
      const call = response.toolCalls[0];
      if (call === undefined) return fail('the call is missing.');
      if (call.invalid === undefined) return fail(`the call has no \`invalid\` although its arguments cannot be parsed: ${JSON.stringify(call)}.`);
      if (call.invalid.rawArguments !== '{"city": "Par') fail(`invalid.rawArguments is ${JSON.stringify(call.invalid.rawArguments)}.`);
    });
  }

  if (options.createTextToolsModel) {
    const createTextToolsModel = options.createTextToolsModel;
    add('finds tool calls written as text when tools go through the prompt', async (fail) => {
      serve({ type: 'text', text: 'get_weather(city="Paris")', finish: 'stop', usage: { inputTokens: 9, outputTokens: 6 } });
      const response = await createTextToolsModel({ url: live().url }).generate({ messages: [{ role: 'user', content: 'Weather?' }], tools: [weather] });
      const call = response.toolCalls[0];
      if (call?.name !== 'get_weather' || call.arguments['city'] !== 'Paris') fail(`expected get_weather({ city: "Paris" }), got ${JSON.stringify(response.toolCalls)}.`);
      if (response.finishReason !== 'tool-calls') fail(`finishReason is "${response.finishReason}", expected "tool-calls".`);
    });
  }

  add('reports a length finish', async (fail) => {
    serve({ ...TEXT, finish: 'length' } as ConformanceScenario);
    const response = await model().generate({ messages: [{ role: 'user', content: 'Weather?' }] });
    if (response.finishReason !== 'length') fail(`finishReason is "${response.finishReason}", expected "length".`);
  });

  add('stops a stream when the caller aborts, and lets go of the connection', async (fail) => {
    const long: ConformanceScenario = { ...TEXT, text: Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ') } as ConformanceScenario;
    const probe = options.wire.render(long, { stream: true, request: { method: 'POST', path: '/', headers: {}, body: undefined } });
    serve(long, { stallAfter: Math.floor(probe.body.length * 0.6), chunkSize: 16 });
    const controller = new AbortController();
    const left = live().clientLeft();
    const events: ChatStreamEvent[] = [];
    let thrown: unknown;
    try {
      for await (const event of model().stream({ messages: [{ role: 'user', content: 'Talk.' }], signal: controller.signal })) {
        events.push(event);
        if (event.type === 'text-delta') controller.abort();
      }
    } catch (error) {
      thrown = error;
    }
    if (!events.some((event) => event.type === 'text-delta')) fail('no text arrived before the stall.');
    if (events.some((event) => event.type === 'finish')) fail('the aborted stream still finished.');
    const last = events.at(-1);
    if (thrown === undefined && last?.type !== 'error') fail('the aborted stream ended without an error.');
    await withTimeout(left, 5000, () => fail('the connection stayed open after the abort.'));
  });

  add('rejects a call whose signal is already aborted', async (fail) => {
    serve(TEXT);
    const controller = new AbortController();
    controller.abort();
    const outcome = await model()
      .generate({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal })
      .then(() => 'resolved', (error: unknown) => error);
    if (outcome === 'resolved') fail('generate() resolved although the signal was aborted.');
  });

  const expected: Record<number, { name: string; is: (error: unknown) => boolean }> = {
    400: { name: 'InvalidRequestError', is: (error) => InvalidRequestError.isInstance(error) },
    401: { name: 'AuthenticationError', is: (error) => AuthenticationError.isInstance(error) },
    403: { name: 'PermissionDeniedError', is: (error) => PermissionDeniedError.isInstance(error) },
    404: { name: 'ModelNotFoundError', is: (error) => ModelNotFoundError.isInstance(error) },
    429: { name: 'RateLimitError', is: (error) => RateLimitError.isInstance(error) },
    500: { name: 'ProviderServerError', is: (error) => ProviderServerError.isInstance(error) },
  };
  for (const status of options.errorStatuses ?? [400, 401, 403, 404, 429, 500]) {
    const want = expected[status];
    if (want === undefined) continue;
    add(`maps HTTP ${status} to ${want.name}`, async (fail) => {
      serve({ type: 'error', status, message: `conformance: status ${status}`, ...(status === 429 ? { retryAfterSeconds: 2 } : {}) });
      const error = await model()
        .generate({ messages: [{ role: 'user', content: 'x' }] })
        .then(() => undefined, (caught: unknown) => caught);
      if (error === undefined) fail(`generate() resolved although the server answered ${status}.`);
      if (!want.is(error)) fail(`got ${describe(error)}, expected ${want.name}.`);
      const providerError = error as ProviderError;
      if (providerError.provider !== options.provider) fail(`the error's provider is "${providerError.provider}", expected "${options.provider}".`);
      if (status === 429 && RateLimitError.isInstance(error) && error.retryAfterMs !== undefined && error.retryAfterMs !== 2000) {
        fail(`retryAfterMs is ${error.retryAfterMs}, expected 2000 from retry-after: 2.`);
      }
    });
  }

  add('maps a context overflow to ContextLengthExceededError', async (fail) => {
    serve({ type: 'error', status: 400, message: "This model's maximum context length is 8192 tokens.", code: 'context_length_exceeded' });
    const error = await model()
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .then(() => undefined, (caught: unknown) => caught);
    if (!ContextLengthExceededError.isInstance(error)) fail(`got ${describe(error)}, expected ContextLengthExceededError.`);
  });

  add("refuses another provider's tool before sending anything", async (fail) => {
    serve(TEXT);
    const foreign: ProviderTool = { type: 'provider', provider: `not-${options.provider}`, id: 'other.tool', name: 'other_tool', config: {} };
    const request: ChatRequest = { messages: [{ role: 'user', content: 'x' }], tools: [weather, foreign] };
    const before = live().requests.length;
    const generated = await model()
      .generate(request)
      .then(() => undefined, (caught: unknown) => caught);
    if (!ProviderToolMismatchError.isInstance(generated)) fail(`generate() gave ${describe(generated)}, expected ProviderToolMismatchError.`);
    const streamed = await collectStream(model().stream(request)).then(() => undefined, (caught: unknown) => caught);
    if (!ProviderToolMismatchError.isInstance(streamed)) fail(`stream() gave ${describe(streamed)}, expected ProviderToolMismatchError.`);
    if (live().requests.length !== before) fail('a request reached the server although the tools were refused.');
  });

  return {
    checks,
    async setup() {
      server = await startConformanceServer();
    },
    async teardown() {
      await server?.close();
      server = undefined;
    },
  };
}

async function drain(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function responseOf(events: ChatStreamEvent[], fail: (problem: string) => never): Promise<ChatResponse> {
  const error = events.find((event) => event.type === 'error');
  if (error?.type === 'error') fail(`the stream failed: ${describe(error.error)}.`);
  async function* replay(): AsyncGenerator<ChatStreamEvent> {
    for (const event of events) yield await Promise.resolve(event);
  }
  try {
    return await collectStream(replay());
  } catch (caught) {
    return fail(`the stream does not collect into a response: ${describe(caught)}.`);
  }
}

/** The stream contract every provider keeps (core's `ChatStreamEvent` docs). */
function checkContract(events: ChatStreamEvent[], fail: (problem: string) => never): void {
  const open = new Map<string, string>();
  const done = new Set<string>();
  events.forEach((event, index) => {
    const terminal = event.type === 'finish' || event.type === 'error';
    if (terminal && index !== events.length - 1) fail(`a ${event.type} event is followed by ${events.length - 1 - index} more.`);
    switch (event.type) {
      case 'tool-call-start':
        if (open.has(event.id) || done.has(event.id)) fail(`tool call ${event.id} started twice.`);
        open.set(event.id, '');
        break;
      case 'tool-call-delta': {
        const text = open.get(event.id);
        if (text === undefined) fail(`arguments for ${event.id} arrived outside its start and end.`);
        open.set(event.id, text + event.argumentsDelta);
        break;
      }
      case 'tool-call': {
        const text = open.get(event.toolCall.id);
        if (text === undefined) fail(`tool call ${event.toolCall.id} ended without a tool-call-start.`);
        if (event.toolCall.invalid === undefined && text !== '' && !sameJson(text, event.toolCall.arguments)) {
          fail(`the deltas of ${event.toolCall.id} spell ${text}, not the arguments ${JSON.stringify(event.toolCall.arguments)}.`);
        }
        open.delete(event.toolCall.id);
        done.add(event.toolCall.id);
        break;
      }
      default:
        break;
    }
  });
  const last = events.at(-1);
  if (last?.type !== 'finish' && last?.type !== 'error') fail('the stream did not end with a finish or error event.');
  if (open.size > 0) fail(`tool calls ${[...open.keys()].join(', ')} started but never ended.`);
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function expectText(response: ChatResponse, fail: (problem: string) => never): void {
  if (TEXT.type !== 'text') return;
  if (response.text !== TEXT.text) fail(`text is ${JSON.stringify(response.text)}, expected ${JSON.stringify(TEXT.text)}.`);
  if (response.finishReason !== 'stop') fail(`finishReason is "${response.finishReason}", expected "stop".`);
  if (response.toolCalls.length !== 0) fail('a text answer came with tool calls.');
  if (response.usage?.inputTokens !== TEXT.usage.inputTokens || response.usage.outputTokens !== TEXT.usage.outputTokens) {
    fail(`usage is ${JSON.stringify(response.usage)}, expected ${JSON.stringify(TEXT.usage)}.`);
  }
  if (response.message.role !== 'assistant' || response.message.content !== TEXT.text) fail('message does not carry the text as an assistant message.');
}

function expectCalls(response: ChatResponse, fail: (problem: string) => never): void {
  if (CALLS.type !== 'tool-calls') return;
  const got = response.toolCalls.map((call) => `${call.name} ${JSON.stringify(call.arguments)}`);
  const want = CALLS.calls.map((call) => `${call.name} ${call.arguments}`);
  if (JSON.stringify(got) !== JSON.stringify(want)) fail(`tool calls are ${JSON.stringify(got)}, expected ${JSON.stringify(want)}.`);
  const ids = new Set(response.toolCalls.map((call) => call.id));
  if (ids.size !== response.toolCalls.length || ids.has('')) fail('tool call ids are missing or repeated.');
  if (response.finishReason !== 'tool-calls') fail(`finishReason is "${response.finishReason}", expected "tool-calls".`);
  if ((response.message.toolCalls ?? []).length !== response.toolCalls.length) fail('message.toolCalls does not carry the calls.');
  if (response.usage?.inputTokens !== CALLS.usage.inputTokens) fail(`usage is ${JSON.stringify(response.usage)}, expected ${JSON.stringify(CALLS.usage)}.`);
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

async function withTimeout(promise: Promise<void>, ms: number, onTimeout: () => never): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  const outcome = await Promise.race([promise.then(() => 'ok' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') onTimeout();
}
