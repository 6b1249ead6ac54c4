import type { RawAnswer } from './raw-exchange.ts';

/** Which endpoint answered. */
export type Api = 'chat' | 'responses';

/** What the gateway's answer must look like, whatever it was sent. */
export interface AnswerRules {
  api: Api;
  /**
   * Which error statuses are acceptable: `client` (the request was generated hostile: 4xx,
   * or the upstream's own 5xx codes), `upstream` (the upstream was: 4xx or 5xx with an
   * upstream code). A 500 `server_error` is never acceptable.
   */
  blame: 'client' | 'upstream';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** OpenAI's error envelope with a message a user can act on, or what is wrong with it. */
export function envelopeProblem(payload: unknown): string | undefined {
  if (!isObject(payload) || !isObject(payload.error)) return 'not an OpenAI error envelope ({error:{message,type,param,code}})';
  const { message, type } = payload.error;
  if (typeof message !== 'string' || message.trim().length < 10) return `error.message is not a sentence: ${JSON.stringify(message)}`;
  if (typeof type !== 'string' || type === '') return 'error.type is missing';
  if (!('param' in payload.error) || !('code' in payload.error)) return 'error.param or error.code is missing';
  if (type === 'server_error') return `an internal error: ${message}`;
  return undefined;
}

/** The SSE events of a body: each event's joined `data:` lines (comments and other fields skipped). */
export function sseData(body: string): string[] {
  const events: string[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    if (data.length > 0) events.push(data.join('\n'));
  }
  return events;
}

const RESPONSES_TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

function chatStreamProblem(events: string[]): string | undefined {
  if (events.length === 0) return 'an empty stream';
  for (const [i, data] of events.entries()) {
    const last = i === events.length - 1;
    if (data === '[DONE]') return last ? undefined : `[DONE] is not the last event (${events.length - i - 1} follow)`;
    const payload = parseJson(data);
    if (!isObject(payload)) return `event ${i} is not a JSON object: ${data.slice(0, 200)}`;
    if ('error' in payload) {
      if (!last) return `an error frame is not the last event: ${data.slice(0, 200)}`;
      return envelopeProblem(payload);
    }
    if (payload.object !== 'chat.completion.chunk' || !Array.isArray(payload.choices)) return `event ${i} is not a chat.completion.chunk: ${data.slice(0, 200)}`;
    for (const choice of payload.choices as unknown[]) {
      const calls = isObject(choice) && isObject(choice.delta) ? choice.delta.tool_calls : undefined;
      if (calls === undefined) continue;
      if (!Array.isArray(calls)) return `event ${i}: delta.tool_calls is not an array`;
      for (const call of calls as unknown[]) {
        if (!isObject(call) || typeof call.index !== 'number') return `event ${i}: a tool call delta without an index`;
        const fn = call.function;
        if (isObject(fn) && fn.arguments !== undefined && typeof fn.arguments !== 'string') return `event ${i}: tool call arguments are not a string`;
      }
    }
  }
  return 'the stream ended without [DONE] or an error frame';
}

function responsesStreamProblem(events: string[]): string | undefined {
  if (events.length === 0) return 'an empty stream';
  let terminal: string | undefined;
  let sequence = -1;
  for (const [i, data] of events.entries()) {
    const payload = parseJson(data);
    if (!isObject(payload) || typeof payload.type !== 'string') return `event ${i} is not a Responses event: ${data.slice(0, 200)}`;
    if (i === 0 && payload.type !== 'response.created') return `the stream opens with ${payload.type}, not response.created`;
    if (typeof payload.sequence_number !== 'number' || payload.sequence_number <= sequence) return `event ${i} (${payload.type}) breaks the sequence_number order`;
    sequence = payload.sequence_number;
    if (terminal !== undefined) return `${payload.type} follows the terminal ${terminal}`;
    if (payload.type === 'error') {
      if (typeof payload.message !== 'string' || payload.message.length < 10) return `an error event without a message: ${data.slice(0, 200)}`;
      if (payload.message.includes('hit an internal error')) return `an internal error: ${data.slice(0, 200)}`;
      continue;
    }
    if (RESPONSES_TERMINAL.has(payload.type)) terminal = payload.type;
  }
  return terminal === undefined ? `the stream ended without a terminal event (last: ${events.at(-1)?.slice(0, 200)})` : undefined;
}

function completionProblem(api: Api, payload: unknown): string | undefined {
  if (!isObject(payload)) return 'the 200 body is not a JSON object';
  if (api === 'chat') {
    if (payload.object !== 'chat.completion' || !Array.isArray(payload.choices)) return 'the 200 body is not a chat.completion';
    for (const choice of payload.choices as unknown[]) {
      if (!isObject(choice) || !isObject(choice.message)) return 'a choice without a message';
      const calls = choice.message.tool_calls;
      if (calls === undefined) continue;
      if (!Array.isArray(calls)) return 'message.tool_calls is not an array';
      for (const call of calls as unknown[]) {
        if (!isObject(call) || typeof call.id !== 'string' || !isObject(call.function) || typeof call.function.arguments !== 'string' || typeof call.function.name !== 'string') {
          return `a malformed tool call: ${JSON.stringify(call)}`;
        }
      }
    }
    return undefined;
  }
  if (payload.object !== 'response' || !Array.isArray(payload.output) || typeof payload.status !== 'string') return 'the 200 body is not a response object';
  return undefined;
}

/** What is wrong with one answer, or undefined when a client can use it. */
export function answerProblem(answer: RawAnswer, rules: AnswerRules): string | undefined {
  const text = answer.body.toString('utf8');
  const contentType = String(answer.headers['content-type'] ?? '');
  if (answer.status >= 400) {
    const problem = envelopeProblem(parseJson(text));
    if (problem !== undefined) return `${answer.status}: ${problem} (${text.slice(0, 300)})`;
    if (answer.status === 500) return `500 for a request the gateway should have refused or mapped: ${text.slice(0, 300)}`;
    if (rules.blame === 'client' && answer.status >= 500 && answer.status !== 503) return `${answer.status} for the client's own input: ${text.slice(0, 300)}`;
    return undefined;
  }
  if (answer.status !== 200) return `unexpected status ${answer.status}`;
  if (contentType.startsWith('text/event-stream')) {
    if (answer.aborted) return 'the stream was cut before its end';
    const problem = rules.api === 'chat' ? chatStreamProblem(sseData(text)) : responsesStreamProblem(sseData(text));
    return problem === undefined ? undefined : `stream: ${problem}`;
  }
  if (answer.aborted) return 'the body was cut before its end';
  return completionProblem(rules.api, parseJson(text));
}
