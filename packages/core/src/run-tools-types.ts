import type { ToolRegistry } from './tool-registry.ts';
import type { ChatModel } from './types/chat-model.ts';
import type { ChatRequest, ToolSpec } from './types/chat-request.ts';
import type { ChatResponse } from './types/chat-response.ts';
import type { FinishReason } from './types/finish-reason.ts';
import type { Message } from './types/message.ts';
import type { ToolCall } from './types/tool-call.ts';
import type { ToolCallAudit } from './types/tool-call-audit.ts';
import type { ToolChoice } from './types/tool-choice.ts';
import type { ToolResult } from './types/tool-result.ts';
import type { Usage } from './types/usage.ts';

/** Extra `ChatRequest` fields passed to every model call of a run (temperature, …). */
export type RunToolsSettings = Omit<ChatRequest, 'messages' | 'tools' | 'toolChoice' | 'parallelToolCalls' | 'signal'>;

/** Options of `runTools` and `runToolsStream`. */
export interface RunToolsOptions {
  model: ChatModel;
  /** The conversation so far; it is not modified. */
  messages: readonly Message[];
  /**
   * What the model is offered. Tools with `execute` run here; function tools without
   * `execute` are the client's (the run stops and returns their calls); provider tools are
   * run by the provider. Default: `registry.list(principal)`.
   */
  tools?: readonly ToolSpec[];
  /**
   * Applies to the first step. A forcing choice (`'required'`, `{ type: 'tool' }`) becomes
   * `'auto'` from the second step on, so the model can answer with the results instead
   * of being forced into a call every step; `'none'` and `'auto'` stay as they are.
   */
  toolChoice?: ToolChoice;
  /** The most model calls in this run (default 10). */
  maxSteps?: number;
  /**
   * Run a turn's calls concurrently (default `true`). Given explicitly, it is also sent to
   * the model (`false` asks for one call per turn); left out, the model's default applies.
   */
  parallelToolCalls?: boolean;
  /** Aborting rejects the run (and the stream) with the signal's reason. */
  signal?: AbortSignal;
  /** Called for every step and tool call; awaited, so a slow listener slows the run. */
  onEvent?: (event: RunToolsEvent) => void | Promise<void>;
  /**
   * Run calls through this registry (permissions, rate limits, concurrency limit). Tools in
   * `tools` that the registry does not hold run directly, without those limits. The registry
   * runs only its own tools that were offered: a function spec in `tools` that is not the
   * registry's tool of that name (a client's tool named like it) stays the caller's, and a
   * registry tool an explicit `tools` list leaves out is an unknown tool to the model.
   */
  registry?: ToolRegistry;
  /** Who asks, for the registry's permissions and rate limits. */
  principal?: string;
  /** Time allowed per tool call (see `executeToolCall`). */
  timeoutMs?: number;
  /**
   * The most characters of a tool's answer that go back to the model (default 1,000,000);
   * a longer one is cut with a note saying so. `ToolResult.value` is kept whole.
   */
  maxResultChars?: number;
  /**
   * Told about every call run here (through `registry` or an offered tool's `execute`) once
   * it is answered: for audit logs (see `ToolCallAudit`). Client calls are not reported.
   */
  onToolAudit?: (audit: ToolCallAudit) => void;
  /**
   * The most characters one model answer may hold: its text, reasoning and tool-call
   * arguments together (default 4 Mi, `DEFAULT_MAX_ANSWER_CHARS`, far above any real
   * answer). Past it the run fails with an `AnswerTooLargeError` and the model's stream is
   * closed, so that a model that loops cannot grow the process without bound. 0 turns it off.
   */
  maxAnswerChars?: number;
  /** The most tool calls one model answer may make (default 1024, `DEFAULT_MAX_TOOL_CALLS_PER_ANSWER`); past it, as `maxAnswerChars`. 0 turns it off. */
  maxToolCallsPerAnswer?: number;
  settings?: RunToolsSettings;
}

/** Why a run ended. */
export type RunToolsStoppedBy = 'answer' | 'client-tool-calls' | 'max-steps';

/** One model call and the tool calls it led to. */
export interface RunToolsStep {
  /** 1-based. */
  stepNumber: number;
  response: ChatResponse;
  text: string;
  finishReason: FinishReason;
  toolCalls: ToolCall[];
  /** Results of the calls run here, in call order, then those the provider ran. */
  toolResults: ToolResult[];
  /** Calls of client tools (no `execute`), left for the caller to answer. */
  pendingToolCalls: ToolCall[];
  usage?: Usage;
}

/** The outcome of `runTools`. */
export interface RunToolsResult {
  /** The last model turn's text. */
  text: string;
  /** The whole history: the given messages plus `newMessages`. */
  messages: Message[];
  /** The messages this run added: each assistant turn and one `tool` message per executed call. */
  newMessages: Message[];
  steps: RunToolsStep[];
  /** The last model turn's finish reason. */
  finishReason: FinishReason;
  /**
   * `answer`: the model replied without calls to run. `client-tool-calls`: it called
   * tools without `execute`; answer `pendingToolCalls` with `tool` messages, append them to
   * `messages`, and run again. `max-steps`: `maxSteps` ran out while the model still
   * called tools, so `text` is not a final answer.
   */
  stoppedBy: RunToolsStoppedBy;
  pendingToolCalls: ToolCall[];
  /** Summed over all steps. */
  usage: Usage;
}

/** Progress of a run, for `onEvent`. */
export type RunToolsEvent =
  | { type: 'step-start'; stepNumber: number; request: ChatRequest }
  | { type: 'tool-call'; stepNumber: number; toolCall: ToolCall; handledBy: 'local' | 'client' | 'provider' }
  | { type: 'tool-result'; stepNumber: number; toolCall: ToolCall; result: ToolResult }
  | { type: 'step-finish'; step: RunToolsStep };
