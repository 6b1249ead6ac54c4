import { addUsage, generateId, partitionTools, UnknownToolError } from '@toolwire/core';
import type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  ChatStreamEvent,
  FunctionToolSpec,
  ToolCall,
  Usage,
  Warning,
} from '@toolwire/core';
import { DEFAULT_FORMATS, OPT_IN_FORMATS } from './extract-options.ts';
import type { ExtractOptions } from './extract-options.ts';
import { renderToolCall } from './render-tool-call.ts';
import { renderToolPrompt } from './render-tool-prompt.ts';
import { toTextMessages } from './text-history.ts';
import type { TextToolFormat } from './text-tool-format.ts';
import { TextToolsDecoder } from './text-tools-decoder.ts';

/** Options of `withTextToolCalling`. */
export interface TextToolCallingOptions {
  /** How the prompt asks the model to write calls: `name(a=1)` (default) or `<tool_call>{json}</tool_call>`. */
  format?: TextToolFormat;
  /**
   * Teaches the model in the format its family was trained on (`'qwen3-xml'`, `'hermes'`,
   * `'harmony'`, `'gemma4'`, …); wins over `format`. Calls in any format are read back
   * (`minicpm5`'s only when it is the format taught: it is not auto-detected).
   */
  promptFormat?: TextToolFormat;
  /** Makes call ids (default: `generateId('call_')`, unique across turns). */
  id?: (name: string, index: number) => string;
}

/** What one request needs once tools have moved into the prompt. */
interface PreparedRequest {
  inner: ChatRequest;
  /** Extraction settings; `undefined` when no tool is offered (the output is plain text). */
  extract: ExtractOptions | undefined;
  /** `true` (any tool) or the name of the tool the answer must call. */
  mustCall: true | string | undefined;
  single: boolean;
  offered: FunctionToolSpec[];
  warnings: Warning[];
}

function noCallWarning(mustCall: true | string): Warning {
  const what = mustCall === true ? 'a tool call was required' : `a call to ${mustCall} was required`;
  return {
    type: 'other',
    message: `The model answered without a tool call although ${what}, even after one corrective retry. Use a model with native tool support, or check the answer yourself.`,
  };
}

function droppedWarning(count: number): Warning {
  return {
    type: 'unsupported-setting',
    setting: 'parallelToolCalls',
    message: `parallelToolCalls is false but the model wrote ${count + 1} calls; only the first was kept.`,
  };
}

/**
 * Gives a text-only `ChatModel` tool calling: the tools go into the system prompt
 * (`renderToolPrompt`), earlier calls and results become text turns, and calls are parsed
 * out of the answer (generate and stream). It enforces what such models ignore:
 * `toolChoice: 'none'` offers no tools; `'required'` or a named tool adds an instruction and,
 * when the answer has no call, one corrective retry, then a `warning`;
 * `parallelToolCalls: false` keeps the first call only.
 *
 * @example const model = withTextToolCalling(textOnlyModel, { format: 'call' });
 */
export function withTextToolCalling(model: ChatModel, options?: TextToolCallingOptions): ChatModel {
  const format = options?.promptFormat ?? options?.format ?? 'call';
  // A format read only when asked for is read back when it is the one taught.
  const optIn = OPT_IN_FORMATS.find((known) => known === format);
  const formats = optIn === undefined ? undefined : [...DEFAULT_FORMATS, optIn];
  const makeId = options?.id ?? (() => generateId('call_'));

  function prepare(request: ChatRequest): PreparedRequest {
    const warnings: Warning[] = [];
    const { functionTools, providerTools } = partitionTools(request.tools, model.provider);
    for (const tool of providerTools) {
      warnings.push({
        type: 'unsupported-tool',
        toolName: tool.name,
        message: `"${tool.name}" is run by the provider and cannot be offered to a model through text tools; it was left out.`,
      });
    }
    const choice = request.toolChoice ?? 'auto';
    let offered = functionTools;
    if (typeof choice === 'object') {
      offered = functionTools.filter((tool) => tool.name === choice.name);
      // A named tool that is not offered is the caller's mistake: fail before any request,
      // as native tool calling does, rather than silently answer without tools.
      if (offered.length === 0) {
        throw new UnknownToolError({ toolName: choice.name, availableTools: functionTools.map((tool) => tool.name) });
      }
    }
    const active = choice !== 'none' && offered.length > 0;
    const single = request.parallelToolCalls === false;
    const toolPrompt = active
      ? renderToolPrompt(offered, { format, toolChoice: choice, ...(single ? { parallelToolCalls: false } : {}) })
      : '';
    const { tools: _tools, toolChoice: _choice, parallelToolCalls: _parallel, ...rest } = request;
    return {
      inner: { ...rest, messages: toTextMessages(request.messages, { format, toolPrompt }) },
      extract: active ? { tools: offered, id: makeId, ...(formats === undefined ? {} : { formats }) } : undefined,
      mustCall: !active || choice === 'auto' ? undefined : choice === 'required' ? true : choice.name,
      single,
      offered,
      warnings,
    };
  }

  /** The request for the one corrective retry: the answer so far, then an instruction to call. */
  function correction(prepared: PreparedRequest, answer: string): ChatRequest {
    const mustCall = prepared.mustCall;
    const tool = prepared.offered.find((t) => mustCall === true || t.name === mustCall) ?? prepared.offered[0];
    const exampleCall = tool === undefined ? '' : `\n${renderToolCall({ name: tool.name, arguments: {} }, format)}`;
    const instruction =
      mustCall === true
        ? `You did not call a tool. Call one of the tools now: reply with only the call, written like:${exampleCall}`
        : `You did not call ${String(mustCall)}. Call it now: reply with only the call, written like:${exampleCall}`;
    return {
      ...prepared.inner,
      messages: [...prepared.inner.messages, { role: 'assistant', content: answer }, { role: 'user', content: instruction }],
    };
  }

  function parseOutput(text: string, prepared: PreparedRequest): { text: string; toolCalls: ToolCall[]; dropped: number } {
    const decoder = new TextToolsDecoder(prepared.extract ?? {}, prepared.single);
    let out = '';
    const toolCalls: ToolCall[] = [];
    for (const event of [...decoder.push(text), ...decoder.end()]) {
      if (event.type === 'text-delta') out += event.delta;
      else if (event.type === 'tool-call') toolCalls.push(event.toolCall);
    }
    return { text: out.trim(), toolCalls, dropped: decoder.dropped };
  }

  async function generate(request: ChatRequest): Promise<ChatResponse> {
    const prepared = prepare(request);
    let response = await model.generate(prepared.inner);
    const warnings = [...prepared.warnings, ...response.warnings];
    if (prepared.extract === undefined) return { ...response, warnings };
    let usage = response.usage;
    let parsed = parseOutput(response.text, prepared);
    if (prepared.mustCall !== undefined && parsed.toolCalls.length === 0) {
      const retry = await model.generate(correction(prepared, response.text));
      usage = addUsage(usage, retry.usage);
      warnings.push(...retry.warnings);
      const retried = parseOutput(retry.text, prepared);
      if (retried.toolCalls.length > 0) {
        response = retry;
        parsed = retried;
      } else {
        warnings.push(noCallWarning(prepared.mustCall));
      }
    }
    if (parsed.dropped > 0) warnings.push(droppedWarning(parsed.dropped));
    const hasCalls = parsed.toolCalls.length > 0;
    const result: ChatResponse = {
      ...response,
      text: parsed.text,
      toolCalls: parsed.toolCalls,
      finishReason: hasCalls && response.finishReason !== 'length' ? 'tool-calls' : response.finishReason,
      warnings,
      message: { ...response.message, content: parsed.text, ...(hasCalls ? { toolCalls: parsed.toolCalls } : {}) },
    };
    if (usage !== undefined) result.usage = usage;
    return result;
  }

  async function* stream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    const prepared = prepare(request);
    for (const warning of prepared.warnings) yield { type: 'warning', warning };
    if (prepared.extract === undefined) {
      yield* model.stream(prepared.inner);
      return;
    }
    let called = 0;
    let dropped = 0;
    let usage: Usage | undefined;
    let finish: Extract<ChatStreamEvent, { type: 'finish' }> | undefined;

    let attempt = prepared.inner;
    for (let round = 0; round < 2; round++) {
      const decoder = new TextToolsDecoder(prepared.extract, prepared.single && called === 0);
      // Kept only for the correction a forced call may need: held for nothing, a long answer
      // would cost several bytes per character (a rope node per delta).
      const keep = prepared.mustCall !== undefined && round === 0 ? [] as string[] : undefined;
      for await (const event of model.stream(attempt)) {
        switch (event.type) {
          case 'text-delta':
            keep?.push(event.delta);
            yield* decoder.push(event.delta);
            break;
          case 'finish':
            finish = event;
            usage = addUsage(usage, event.usage);
            break;
          case 'error':
            yield* decoder.end();
            yield event;
            return;
          default:
            yield event;
        }
      }
      yield* decoder.end();
      called += decoder.called;
      dropped += decoder.dropped;
      if (called > 0 || prepared.mustCall === undefined || round === 1) break;
      attempt = correction(prepared, keep?.join('') ?? '');
    }
    if (prepared.mustCall !== undefined && called === 0) yield { type: 'warning', warning: noCallWarning(prepared.mustCall) };
    if (dropped > 0) yield { type: 'warning', warning: droppedWarning(dropped) };
    const finishReason = finish?.finishReason ?? 'stop';
    const last: ChatStreamEvent = { ...(finish ?? { type: 'finish', finishReason }), finishReason: called > 0 && finishReason !== 'length' ? 'tool-calls' : finishReason };
    if (usage !== undefined) last.usage = usage;
    yield last;
  }

  return { provider: model.provider, modelId: model.modelId, generate, stream };
}
