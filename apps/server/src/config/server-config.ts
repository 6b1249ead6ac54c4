import type { Tool } from '@toolwire/core';
import type { Logger } from 'pino';
import type { ApiKeyConfig } from '../auth/api-key-store.ts';
import type { McpServerConfig, OpenApiSourceConfig } from './dynamic-tools-config.ts';
import type { ModelProvider } from '../models/model-provider.ts';
import type { ToolAuditEvent } from '../tools/audit-event.ts';

/** The built-in server tools. */
export type BuiltinToolName = 'get_current_time' | 'calculate' | 'fetch_url';

/** Upstream providers; each present entry adds its routing prefix. */
export interface ProvidersConfig {
  /** `openai/<id>`: OpenAI or any Chat Completions server. */
  openai?: { apiKey?: string; baseURL?: string; models?: string[] };
  /** `ollama/<id>`: models of an Ollama server (listed from `/api/tags`). */
  ollama?: { host?: string };
  /**
   * `chatgpt/<id>`: a ChatGPT sign-in (Codex backend). `baseURL` (default
   * `https://chatgpt.com/backend-api`) and `issuer` (the sign-in server, default
   * `https://auth.openai.com`) are for proxies and local test servers.
   */
  chatgpt?: { authFile?: string; models?: string[]; baseURL?: string; issuer?: string };
  /**
   * `replay/<name>`: recorded conversations (core's `ReplayTranscript` JSON) replayed offline,
   * name → transcript file. Calls the recording wrote as text are parsed (`textTools`, default true).
   */
  replay?: { transcripts: Record<string, string>; textTools?: boolean };
}

/** Server-side tools. */
export interface ServerToolsConfig {
  /** Built-ins to offer (default: `get_current_time`, `calculate`, and `fetch_url` when `allowedDomains` is set). */
  builtins?: BuiltinToolName[];
  /** A directory of custom tools: each `.js` file exports `definition` and `handler`, run in the sandbox. */
  customToolsPath?: string;
  /** Domains `fetch_url` and custom tools may reach (`example.com`, `*.example.com`). */
  allowedDomains?: string[];
  /** Executions running at once across all requests (default 10). */
  maxConcurrent?: number;
  /** Time allowed per server-tool call in ms, waiting for a free slot included (default 30 000). */
  timeoutMs?: number;
}

/** Request and lifecycle limits. */
export interface LimitsConfig {
  /** Largest request body in bytes (default 4 MiB); larger bodies get a 413. */
  bodyLimitBytes?: number;
  /** Model calls per client request when server tools run (default 8). */
  maxSteps?: number;
  /**
   * On close/SIGTERM, how long open requests and streams may run on once the gateway stopped
   * accepting connections (default 30 000 ms). Then streams get a `shutting_down` error frame,
   * requests not answered yet a 503, and connections still open a second later are cut.
   */
  shutdownGraceMs?: number;
  /**
   * On close/SIGTERM, how long the gateway keeps accepting and serving new connections while
   * `/readyz` answers `503 draining` (default 0: it stops accepting at once), so that load
   * balancers take it out of rotation before connections are refused (a preStop delay).
   */
  drainDelayMs?: number;
  /**
   * Request bodies one API key may be sending at once (default 32; applies when keys are
   * configured). More get a 429 at once, before their body is read.
   */
  maxPendingBodiesPerKey?: number;
  /** Time a client has to send a whole request, headers and body (default 30 000 ms). */
  requestTimeoutMs?: number;
  /** Time a client has to send the request headers (default 10 000 ms; at most `requestTimeoutMs`). */
  headersTimeoutMs?: number;
  /** A client connection with no traffic either way for this long is closed (default 900 000 ms; 0 disables). Keep it above the longest silent wait for an upstream. */
  connectionTimeoutMs?: number;
  /**
   * Longest silence of an upstream (before its headers, or between two reads of its body)
   * before the request to it is stopped and the client gets an error (default 600 000 ms, the
   * `openai` SDK's own request timeout; 0 disables).
   */
  upstreamIdleTimeoutMs?: number;
  /**
   * The longest a model request may run, from the moment the gateway starts answering it to
   * its last byte, all its model calls and server tools included (default 3 600 000 ms, one
   * hour; 0 disables). Past it the upstream and the tools are stopped and the client gets a
   * 504 `request_timeout` (an error frame once streaming). The idle timeout counts silence
   * only: this bounds an upstream that keeps trickling bytes without ever finishing.
   */
  maxRequestDurationMs?: number;
  /**
   * The largest message an upstream may send, in bytes: one event of an SSE stream, one line
   * of an NDJSON stream (Ollama), or a whole non-streamed body (default 16 MiB; 0 disables).
   * Past it that request fails with an error, instead of the gateway holding a message without bound.
   */
  upstreamMessageLimitBytes?: number;
  /**
   * The most characters one model answer may hold: its text, reasoning and tool-call
   * arguments together, streamed or not (default 4 Mi, 4 194 304; 0 disables). Past it that
   * request is stopped, its upstream connection closed, and the client gets an error: a model
   * that loops cannot make the gateway hold an answer without bound.
   */
  upstreamAnswerLimitChars?: number;
  /** The most tool calls one model answer may make (default 1024; 0 disables); past it, as `upstreamAnswerLimitChars`. */
  upstreamAnswerToolCallLimit?: number;
  /**
   * How long `GET /v1/models` waits for each provider's list (default 10 000 ms): a provider
   * slower than that is left out of the answer and logged, instead of holding it.
   */
  modelListTimeoutMs?: number;
  /**
   * Connections the kernel queues for the gateway to accept (default 4096; Linux caps it at
   * `net.core.somaxconn`). Clients arriving in a burst past it wait a SYN retransmission (1 s, then 3 s).
   */
  listenBacklog?: number;
  /**
   * Listening sockets bound to the gateway's port with `SO_REUSEPORT` (default 8 on Linux,
   * 1 elsewhere). Node accepts one connection per socket per turn of its event loop, and a
   * turn lasts milliseconds while thousands of streams flow: with one socket a burst of new
   * clients waits in the kernel's queue for seconds. 1 binds the port exclusively as before.
   */
  listenSockets?: number;
}

/** Where the state other instances must see lives (rate limits, concurrency slots, mixed turns). */
export interface StateConfig {
  /**
   * Redis (or Valkey) shared by every instance; absent: this process's memory. `url` is
   * `redis://[user:password@]host:port[/db]` (prefer `TOOLWIRE_REDIS_URL` for a password).
   */
  redis?: { url: string; keyPrefix?: string; commandTimeoutMs?: number };
}

/** `GET /metrics` (Prometheus text format): off unless enabled. */
export interface MetricsConfig {
  enabled?: boolean;
  /** `sha256:<hex>` of the bearer key scrapers must send (`--hash-key` prints it); absent: open to whoever reaches the port. */
  keyHash?: string;
}

/** Everything `createServer` takes. The JSON config file holds the serialisable part. */
export interface ServerConfig {
  /** Default 127.0.0.1. Without keys only a loopback address is accepted. */
  host?: string;
  /** Default 8787; 0 picks a free port. */
  port?: number;
  providers?: ProvidersConfig;
  /** Client API keys (hashed). None: no authentication, loopback only. */
  keys?: ApiKeyConfig[];
  tools?: ServerToolsConfig;
  limits?: LimitsConfig;
  /** Shared state (default in memory; Redis for several instances). */
  state?: StateConfig;
  /** Prometheus metrics at `GET /metrics` (default off). */
  metrics?: MetricsConfig;
  /** MCP servers whose tools become server tools named `<name>_<tool>` (see README, "MCP servers and OpenAPI documents"). */
  mcpServers?: Record<string, McpServerConfig>;
  /** OpenAPI documents whose operations become server tools named `<name>_<operationId>`. */
  openApi?: Record<string, OpenApiSourceConfig>;
  /** pino level (default `info`). */
  logLevel?: string;
  /** Programmatic: extra or replacement routing prefixes (tests, embedding). They win over `providers`. */
  modelProviders?: ModelProvider[];
  /** Programmatic: extra server tools (core `Tool`s with `execute`, e.g. from `defineTool`); a name already taken replaces the earlier tool. */
  extraTools?: Tool[];
  /** Programmatic: the pino logger to use instead of one on stdout. */
  logger?: Logger;
  /** Programmatic: called with every server-tool execution's audit event (after it is logged). */
  onToolAudit?: (event: ToolAuditEvent) => void;
}
