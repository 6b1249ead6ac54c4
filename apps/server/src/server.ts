import { generateId, resolveAnswerLimits } from '@toolwire/core';
import { timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyError, FastifyListenOptions, FastifyReply } from 'fastify';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { createApiKeyStore } from './auth/api-key-store.ts';
import type { ApiKeyStore } from './auth/api-key-store.ts';
import { hashApiKey } from './auth/hash-key.ts';
import { createPendingBodies, DEFAULT_MAX_PENDING_BODIES_PER_KEY } from './auth/pending-bodies.ts';
import type { ServerConfig } from './config/server-config.ts';
import { assertPortFree, DEFAULT_LISTEN_SOCKETS, openExtraListeners, supportsReusePort } from './extra-listeners.ts';
import type { ExtraListeners } from './extra-listeners.ts';
import type { GatewayContext } from './gateway-context.ts';
import { isLoopbackHost } from './loopback.ts';
import { createConfiguredProviders } from './models/configured-providers.ts';
import type { UpstreamLimits } from './models/configured-providers.ts';
import type { AnswerBounds } from './loop/run-gateway-loop.ts';
import { createModelRouter } from './models/model-router.ts';
import { createChatCompletionsHandler } from './routes/chat-completions-route.ts';
import { createModelsHandler, DEFAULT_MODEL_LIST_TIMEOUT_MS } from './routes/models-route.ts';
import { DEFAULT_MAX_REQUEST_DURATION_MS } from './routes/serve-gateway-call.ts';
import { createResponsesHandler, createRetrieveResponseHandler } from './routes/responses-route.ts';
import { createResponseStore } from './response-store.ts';
import { ServedConnections } from './served-connections.ts';
import { AccessLogController, CLIENT_CLOSED_REQUEST, logClientGone } from './observability/access-log.ts';
import { createGatewayMetrics, DISABLED_GATEWAY_METRICS } from './observability/gateway-metrics.ts';
import type { GatewayMetrics } from './observability/gateway-metrics.ts';
import { createGatewayState } from './state/create-gateway-state.ts';
import type { GatewayState } from './state/gateway-state.ts';
import { loadDynamicTools } from './tools/load-dynamic-tools.ts';
import { loadServerTools } from './tools/load-server-tools.ts';
import { createServerToolRegistry } from './tools/server-tool-registry.ts';
import { checkJsonTextDepth } from './wire/check-json-depth.ts';
import { GatewayError } from './wire/gateway-error.ts';
import { shuttingDownError } from './wire/shutting-down.ts';
import { toGatewayError } from './wire/to-gateway-error.ts';

/** A running (or ready to run) gateway. */
export interface ToolwireServer {
  /** Starts listening; resolves with the base URL, e.g. `http://127.0.0.1:8787/v1`. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /**
   * Drains and stops: `/readyz` answers `503 draining`, every response closes its connection,
   * new connections are refused (after `limits.drainDelayMs`), open requests and streams run
   * on for up to `limits.shutdownGraceMs` and are then told `shutting_down`; resolves once
   * every connection has ended, after which server tools and the state are closed.
   */
  close(): Promise<void>;
  /** The logger (pino), for the bin's own messages. */
  readonly logger: Logger;
}

const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;
/** How long open requests and streams may run on once the gateway stopped accepting (`limits.shutdownGraceMs`). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
// Above the default upstream idle timeout: a non-streamed request is silent while it waits.
const DEFAULT_CONNECTION_TIMEOUT_MS = 900_000;
// After the grace period's `shutting_down` frames, how long connections may take to end before they are cut.
const SHUTDOWN_CUT_AFTER_MS = 1000;
// Node's default (511) overflows when thousands of streaming clients arrive at once, and a
// dropped handshake costs the client a 1 s SYN retransmission; the kernel caps it at somaxconn.
const DEFAULT_LISTEN_BACKLOG = 4096;

/** Node's timeouts for receiving requests, from `limits`, consistent with each other. */
function clientTimeouts(config: ServerConfig): { requestTimeout: number; headersTimeout: number; connectionTimeout: number; checkEvery: number } {
  const requestTimeout = config.limits?.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // Node refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(config.limits?.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout);
  const connectionTimeout = config.limits?.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
  // Node checks both timeouts on an interval (30 s by default): check often enough to honour them.
  const checkEvery = Math.min(5_000, Math.max(100, Math.floor(headersTimeout / 4)));
  return { requestTimeout, headersTimeout, connectionTimeout, checkEvery };
}

const requestIdPrefix = generateId('req_', 8) + '_';
let nextRequestId = 0;

function createLogger(config: ServerConfig): Logger {
  return (
    config.logger ??
    pino({
      level: config.logLevel ?? 'info',
      redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey'], censor: '[redacted]' },
    })
  );
}

function sendError(reply: FastifyReply, error: GatewayError, requestId: string): void {
  if (error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
  void reply
    .code(error.status)
    .header('content-type', 'application/json')
    .header('x-should-retry', error.retryable ? 'true' : 'false')
    .header('x-request-id', requestId)
    .send(error.toEnvelope());
}

function upstreamLimits(config: ServerConfig): UpstreamLimits {
  const ms = config.limits?.upstreamIdleTimeoutMs;
  const bytes = config.limits?.upstreamMessageLimitBytes;
  return { ...(ms === undefined ? {} : { upstreamIdleTimeoutMs: ms }), ...(bytes === undefined ? {} : { upstreamMessageLimitBytes: bytes }), answerLimits: answerLimits(config) };
}

/** `limits.upstreamAnswerLimitChars` and `limits.upstreamAnswerToolCallLimit` as the providers' and core's options. */
function answerLimits(config: ServerConfig): AnswerBounds {
  const chars = config.limits?.upstreamAnswerLimitChars;
  const calls = config.limits?.upstreamAnswerToolCallLimit;
  // Checked here (a config object may skip the file's checks): a bad value stops startup naming
  // the gateway's setting, rather than a provider's option at startup or core's on every request.
  resolveAnswerLimits({ maxAnswerChars: chars, maxToolCallsPerAnswer: calls }, { chars: 'limits.upstreamAnswerLimitChars', toolCalls: 'limits.upstreamAnswerToolCallLimit' });
  return { ...(chars === undefined ? {} : { maxAnswerChars: chars }), ...(calls === undefined ? {} : { maxToolCallsPerAnswer: calls }) };
}

/** Fastify's own errors (body parsing, limits) → OpenAI's envelope. */
function fromFastifyError(error: FastifyError, bodyLimit: number): GatewayError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError({
        status: 413,
        type: 'invalid_request_error',
        message: `The request body is larger than the gateway's limit of ${bodyLimit} bytes. Send fewer or shorter messages.`,
        code: 'request_too_large',
        retryable: false,
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError({ status: 415, type: 'invalid_request_error', message: "Send the request body as JSON with 'Content-Type: application/json'.", code: 'unsupported_media_type', retryable: false });
    default:
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return new GatewayError({ status: error.statusCode, type: 'invalid_request_error', message: error.message, code: null, retryable: false });
      }
      return undefined;
  }
}

interface BuildAppOptions {
  config: ServerConfig;
  keys: ApiKeyStore;
  logger: Logger;
  /** The shared state, available once `listen` has loaded tools and providers. */
  context: () => GatewayContext;
  /** True once `close` has begun: `/readyz` says draining. */
  draining: () => boolean;
  /** True once the gateway stopped accepting (after the drain delay): API requests get the `shutting_down` 503. */
  closing: () => boolean;
  metrics: GatewayMetrics;
  /** The state, once `listen` has created it. */
  state: () => GatewayState | undefined;
}

/** Whether a scrape may read `/metrics`: any caller without a configured key, else the bearer key's hash must match. */
function mayScrape(authorization: string | undefined, keyHash: string | undefined): boolean {
  if (keyHash === undefined) return true;
  if (authorization === undefined || !authorization.toLowerCase().startsWith('bearer ')) return false;
  const sent = Buffer.from(hashApiKey(authorization.slice(7).trim()));
  const expected = Buffer.from(keyHash.toLowerCase());
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/** Health probes and the metrics scrape: answered without a client key. */
const UNAUTHENTICATED_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz', '/metrics']);

// The return type is inferred: it carries pino's `Logger` type through Fastify's generics.
function buildApp({ config, keys, logger, context, draining, closing, metrics, state }: BuildAppOptions) {
  const bodyLimit = config.limits?.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const timeouts = clientTimeouts(config);
  const pendingBodies = createPendingBodies(config.limits?.maxPendingBodiesPerKey ?? DEFAULT_MAX_PENDING_BODIES_PER_KEY);
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit,
    // A client has this long to send its whole request (a trickled body is cut with a 408),
    // its headers, and a connection may stay silent this long.
    requestTimeout: timeouts.requestTimeout,
    connectionTimeout: timeouts.connectionTimeout,
    http: { headersTimeout: timeouts.headersTimeout, requestTimeout: timeouts.requestTimeout, connectionsCheckingInterval: timeouts.checkEvery },
    requestIdHeader: 'x-request-id',
    // One access-log line per request, at its end (see access-log.ts).
    logController: new AccessLogController(),
    // A per-process random prefix and a counter: unique, and no random bytes per request.
    genReqId: () => `${requestIdPrefix}${(nextRequestId++).toString(36)}`,
    // Open streams are allowed to drain on close; idle keep-alive sockets are closed.
    forceCloseConnections: 'idle',
    // Requests arriving while closing get our own 503 in OpenAI's envelope (below).
    return503OnClosing: false,
    // Fastify's own answer to a URL it cannot decode is not in OpenAI's envelope.
    frameworkErrors: (error, req, reply) => {
      sendError(
        reply,
        new GatewayError({
          status: 400,
          type: 'invalid_request_error',
          message: `The request URL cannot be decoded (${error.message}). Check its percent-encoding.`,
          code: 'invalid_url',
          retryable: false,
        }),
        req.id,
      );
    },
  });
  const metricsConfig = config.metrics;
  if (metricsConfig?.enabled === true) {
    // Every exchange, streams included (a hijacked reply skips Fastify's own onResponse).
    // (`on`, not `once`: a response closes once, and `once` adds a wrapper per request that a stream keeps.)
    app.addHook('onRequest', (req, reply, done) => {
      // A response closed before its headers went out was never answered (the client left, or
      // the connection was cut): the access line's 499, not Node's default 200.
      reply.raw.on('close', () => {
        const res = reply.raw;
        metrics.request(req.routeOptions.url ?? 'unmatched', req.method, res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST, reply.elapsedTime / 1000);
      });
      done();
    });
  }
  // A callback hook, not an async one: every request passes here, and nothing in it waits.
  app.addHook('onRequest', (req, reply, done) => {
    // Probes and scrapes still answer while the gateway drains (`/readyz` with its `draining` 503).
    if (closing() && (req.url.startsWith('/v1/') || !UNAUTHENTICATED_ROUTES.has(req.routeOptions.url ?? ''))) {
      void reply.header('connection', 'close');
      done(shuttingDownError());
      return;
    }
    // Without keys there is nothing to check; probes carry no client key (`/metrics` checks its own).
    // (`routeOptions` is a getter that builds its object on every read: read once, and only when needed.)
    if (!keys.required) {
      done();
      return;
    }
    // The API's paths never match a probe's route: only other paths need the route looked up.
    if (!req.url.startsWith('/v1/')) {
      const route = req.routeOptions.url;
      if (route !== undefined && UNAUTHENTICATED_ROUTES.has(route)) {
        done();
        return;
      }
    }
    // The key is checked from the headers, before a byte of the body is read: a client
    // without one holds no buffer and no connection (the 401 closes it).
    let principal;
    try {
      principal = keys.authenticate(req.headers.authorization);
    } catch (error) {
      void reply.header('connection', 'close');
      done(error as Error);
      return;
    }
    try {
      pendingBodies.admit(req, principal.id, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
  // A body fully read (or its request gone) no longer counts against its key (counted only when keys are required).
  if (keys.required) {
    app.addHook('preValidation', (req, _reply, done) => {
      pendingBodies.release(req);
      done();
    });
  }

  // JSON bodies with any (or no) content type: clients differ, and an unreadable body is a 400 either way.
  app.removeAllContentTypeParsers();
  const parseJsonBody = (_req: unknown, body: string | Buffer, done: (error: Error | null, body?: unknown) => void): void => {
    try {
      // Before JSON.parse: a body of nothing but brackets would allocate millions of arrays.
      checkJsonTextDepth(body as string);
    } catch (error) {
      done(error as GatewayError, undefined);
      return;
    }
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(
        new GatewayError({
          status: 400,
          type: 'invalid_request_error',
          message:
            "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)",
          code: 'invalid_json',
          retryable: false,
        }),
        undefined,
      );
    }
  };
  // Registered by name too: Fastify caches the parser of a content type it has a name for,
  // while the catch-all alone has the header parsed again on every request.
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, parseJsonBody);
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, parseJsonBody);

  app.setErrorHandler((error: FastifyError, req, reply) => {
    const gatewayError = GatewayError.isInstance(error) ? error : (fromFastifyError(error, bodyLimit) ?? toGatewayError(error));
    // The shared state's outage is logged where it is found (once per kind and 30 s), not with a
    // stack per request; a request refused or cut by the shutdown is no failure of the gateway.
    if (gatewayError.code === 'request_timeout') req.log.warn({ status: gatewayError.status, code: gatewayError.code }, 'request stopped: it ran past limits.maxRequestDurationMs');
    else if (gatewayError.status >= 500 && gatewayError.code !== 'state_unavailable' && gatewayError.code !== 'shutting_down') req.log.error({ err: error }, 'request failed');
    else req.log.info({ status: gatewayError.status, code: gatewayError.code, message: gatewayError.message }, 'request refused');
    // A client that left (while sending its body, say) gets no answer, so no completion line.
    if (reply.raw.destroyed) logClientGone(req, reply, 'client disconnected');
    sendError(reply, gatewayError, req.id);
  });
  app.setNotFoundHandler((req, reply) => {
    sendError(
      reply,
      new GatewayError({
        status: 404,
        type: 'invalid_request_error',
        message: `Unknown request URL: ${req.method} ${req.url}. The gateway serves POST /v1/chat/completions, POST /v1/responses, GET /v1/responses/{id}, GET /v1/models, GET /livez and GET /readyz.`,
        code: 'unknown_url',
        retryable: false,
      }),
      req.id,
    );
  });

  // Liveness: the process answers (`/healthz` is the older name). Readiness: it should get traffic.
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/livez', () => ({ status: 'ok' }));
  app.get('/readyz', (_req, reply) => {
    const reasons: string[] = [];
    const current = state();
    if (draining()) reasons.push('draining');
    if (current === undefined) reasons.push('starting');
    else if (!current.available) reasons.push(`${current.kind}_unavailable`);
    if (reasons.length === 0) return { status: 'ready', state: current?.kind };
    return reply.code(503).header('cache-control', 'no-store').send({ status: 'not_ready', reasons });
  });
  if (metricsConfig?.enabled === true) {
    app.get('/metrics', (req, reply) => {
      if (!mayScrape(req.headers.authorization, metricsConfig.keyHash)) {
        throw new GatewayError({ status: 401, type: 'invalid_request_error', message: "GET /metrics needs the metrics key: send it as 'Authorization: Bearer <key>'.", code: 'invalid_api_key', retryable: false });
      }
      return reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8').send(metrics.render());
    });
  }
  app.get('/v1/models', createModelsHandler(context));
  app.post('/v1/chat/completions', createChatCompletionsHandler(context));
  app.post('/v1/responses', createResponsesHandler(context));
  app.get('/v1/responses/:id', createRetrieveResponseHandler(context));
  return app;
}

/**
 * Creates the OpenAI-compatible gateway. Nothing is started until `listen`.
 * @example
 * const server = createServer({ providers: { ollama: {} } });
 * const baseURL = await server.listen({ port: 8787 });
 */
export function createServer(config: ServerConfig = {}): ToolwireServer {
  const logger = createLogger(config);
  const keys = createApiKeyStore(config.keys ?? []);
  const inflight = new Set<AbortController>();
  let context: GatewayContext | undefined;
  let state: GatewayState | undefined;
  let listening = false;
  let draining = false;
  let closing = false;
  let closed: Promise<void> | undefined;
  let toolLoad = (): { active: number; waiting: number } => ({ active: 0, waiting: 0 });
  let sandboxPoolSize = 0;
  const toolSlots = config.tools?.maxConcurrent ?? 10;
  // Without the scrape endpoint nobody reads the counters: count nothing.
  const metrics = config.metrics?.enabled !== true ? DISABLED_GATEWAY_METRICS : createGatewayMetrics({
    toolLoad: () => toolLoad(),
    toolSlots,
    get sandboxPoolSize() {
      return sandboxPoolSize;
    },
    state: () => ({ kind: state?.kind ?? (config.state?.redis === undefined ? 'memory' : 'redis'), available: state?.available ?? false }),
    inflight: () => inflight.size,
  });
  const app = buildApp({
    metrics,
    state: () => state,
    config,
    keys,
    logger,
    context: () => {
      if (context === undefined) throw new Error('The server is not started.');
      return context;
    },
    draining: () => draining,
    closing: () => closing,
  });
  // Every connection, whichever listening socket accepted it: what `close` waits for.
  const connections = new ServedConnections(app.server);
  let disposeTools = (): Promise<void> => Promise.resolve();
  let extraListeners: ExtraListeners | undefined;

  /** `close`: drain, stop accepting, wait for every connection (within the grace), then close tools and state. */
  async function drainAndClose(): Promise<void> {
    draining = true;
    connections.drain();
    const delay = config.limits?.drainDelayMs ?? 0;
    if (delay > 0) {
      logger.info(`Draining: /readyz answers 503; accepting connections for ${delay} ms more (limits.drainDelayMs).`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    closing = true;
    extraListeners?.close();
    extraListeners = undefined;
    connections.closeIdle();
    // Fastify's close stops the listening socket and ends idle connections; it resolves when
    // that socket's own connections have ended, which `connections` covers with the rest.
    const appClosed = app.close();
    // Awaited below, after the connections: a failure must not go unhandled meanwhile.
    appClosed.catch(() => undefined);
    const grace = config.limits?.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    let cut: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      // Each open answer writes its `shutting_down` frame (or 503) and ends; what is still
      // open a moment later (a client that stopped reading, a tool that ignores the abort) is cut.
      const reason = shuttingDownError(true);
      for (const controller of inflight) controller.abort(reason);
      cut = setTimeout(() => connections.destroyAll(), SHUTDOWN_CUT_AFTER_MS);
      cut.unref();
    }, grace);
    timer.unref();
    try {
      await connections.ended();
      await appClosed;
    } finally {
      clearTimeout(timer);
      clearTimeout(cut);
      await disposeTools();
      await state?.close();
    }
  }

  return {
    logger,
    async listen(options = {}) {
      const host = options.host ?? config.host ?? '127.0.0.1';
      const port = options.port ?? config.port ?? 8787;
      if (!keys.required && !isLoopbackHost(host)) {
        throw new Error(
          `Refusing to listen on ${host} without API keys: anyone who can reach it could use your providers. ` +
            "Configure 'keys' (or TOOLWIRE_API_KEYS) or listen on 127.0.0.1.",
        );
      }
      const loaded = await loadServerTools({ config: config.tools ?? {}, extraTools: config.extraTools ?? [], logger, onSandboxRun: (outcome) => metrics.sandboxRun(outcome) });
      // MCP servers and OpenAPI documents: a required one that fails stops the start here.
      const dynamicTools = await loadDynamicTools({ mcpServers: config.mcpServers ?? {}, openApi: config.openApi ?? {}, logger }).catch(async (error: unknown) => {
        await loaded.dispose();
        throw error;
      });
      const serverTools = loaded.tools;
      sandboxPoolSize = loaded.sandboxPoolSize;
      disposeTools = async () => {
        await Promise.all([loaded.dispose(), dynamicTools.close()]);
      };
      const gatewayState = createGatewayState(config.state, logger);
      state = gatewayState;
      if (!(await gatewayState.whenAvailable(2000))) {
        logger.warn('The shared state (Redis) is not reachable yet: the gateway starts, /readyz answers 503, and requests that need it get 503 until it is.');
      }
      const registry = createServerToolRegistry({ tools: serverTools.values(), keys: config.keys ?? [], maxConcurrent: toolSlots });
      toolLoad = () => registry.load;
      const providers = [...(config.modelProviders ?? [])];
      for (const provider of await createConfiguredProviders(config.providers ?? {}, { logger, ...upstreamLimits(config) })) {
        if (!providers.some((p) => p.name === provider.name)) providers.push(provider);
      }
      context = {
        router: createModelRouter(providers),
        keys,
        state: gatewayState,
        metrics,
        serverTools: registry,
        toolTimeoutMs: config.tools?.timeoutMs ?? 30_000,
        audit: (event) => {
          logger.info({ audit: event }, 'tool execution');
          metrics.toolExecution(event, registry.get(event.tool) !== undefined);
          try {
            config.onToolAudit?.(event);
          } catch (error) {
            // The embedder's callback failing is its bug; the tool call's answer stands.
            logger.error({ err: error }, 'onToolAudit threw');
          }
        },
        maxSteps: config.limits?.maxSteps ?? 8,
        answerLimits: answerLimits(config),
        responses: createResponseStore(),
        inflight,
        startedAt: Math.floor(Date.now() / 1000),
        modelListTimeoutMs: config.limits?.modelListTimeoutMs ?? DEFAULT_MODEL_LIST_TIMEOUT_MS,
        maxRequestDurationMs: config.limits?.maxRequestDurationMs ?? DEFAULT_MAX_REQUEST_DURATION_MS,
      };
      dynamicTools.attach(context.serverTools);
      let address: string;
      try {
        const backlog = config.limits?.listenBacklog ?? DEFAULT_LISTEN_BACKLOG;
        const wanted = config.limits?.listenSockets ?? DEFAULT_LISTEN_SOCKETS;
        const sockets = wanted > 1 && !supportsReusePort() ? 1 : wanted;
        if (sockets < wanted) logger.warn(`limits.listenSockets ${wanted} needs Node 22.12 or later (SO_REUSEPORT); this is Node ${process.versions.node}: serving from one socket.`);
        // Bound with SO_REUSEPORT, the port would be shared with a gateway already on it instead of refused.
        if (sockets > 1) await assertPortFree(host, port);
        // `reusePort` is Node's (≥ 22.12) and passes through Fastify to `server.listen`.
        address = await app.listen({ port, host, backlog, ...(sockets > 1 ? { reusePort: true } : {}) } as FastifyListenOptions);
        if (sockets > 1) {
          const bound = app.server.address();
          if (bound !== null && typeof bound === 'object') {
            // Not worth refusing to start over: the gateway's own socket serves everything, more slowly in a burst.
            extraListeners = await openExtraListeners({
              server: app.server,
              host: bound.address,
              port: bound.port,
              count: sockets - 1,
              backlog,
              onError: (error) => logger.warn({ err: error }, 'A listening socket of the gateway failed (limits.listenSockets); the others keep serving.'),
            }).catch((error: unknown) => {
              logger.warn({ err: error }, `Could not bind ${sockets - 1} more listening sockets to the port (limits.listenSockets); serving from one.`);
              return undefined;
            });
          }
        }
      } catch (error) {
        await disposeTools();
        await gatewayState.close();
        throw error;
      }
      listening = true;
      if (!keys.required) logger.warn('No API keys configured: the gateway accepts every request, so it listens on loopback only.');
      // (Client keys are required beyond loopback; the scrape is not refused: a Prometheus on a private network often has no key.)
      if (metrics.enabled && config.metrics?.keyHash === undefined && !isLoopbackHost(host)) {
        logger.warn(
          `GET /metrics has no key and the gateway listens on ${host}: anyone who can reach it reads its traffic, tool names and capacity. ` +
            "Set 'metrics.keyHash' (or TOOLWIRE_METRICS_KEY), or keep the port off untrusted networks.",
        );
      }
      logger.info(
        { providers: providers.map((p) => p.name), serverTools: [...serverTools.keys()], dynamicTools: dynamicTools.summary(), state: gatewayState.kind },
        `Toolwire gateway at ${address}/v1`,
      );
      return `${address}/v1`;
    },
    close() {
      // A second call waits for the same drain.
      if (closed !== undefined) return closed;
      if (!listening) return Promise.resolve();
      listening = false;
      closed = drainAndClose();
      return closed;
    },
  };
}
