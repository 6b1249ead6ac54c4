import { defineTool, toolOutput, UnsupportedFeatureError } from '@toolwire/core';
import type { Tool, ToolExecutionContext, ToolOutput } from '@toolwire/core';
import { createSecretRedactor } from '@toolwire/core/provider';
import type { SecretRedactor } from '@toolwire/core/provider';
import { createGuardedStreamFetch, FetchDeniedError } from '@toolwire/sandbox';
import type { GuardedStreamFetch } from '@toolwire/sandbox';
import { buildRequest, RequestArgumentError } from './build-request.ts';
import type { OpenApiAuth } from './build-request.ts';
import { OpenApiDocumentError } from './errors.ts';
import { loadDocument } from './load-document.ts';
import { mapResponse } from './map-response.ts';
import { planOperation } from './operation-plan.ts';
import type { OperationPlan, ReservedParameters } from './operation-plan.ts';
import { cutText, SchemaConverter } from './to-json-schema.ts';
import type { SchemaDialect } from './to-json-schema.ts';
import { operationToolName } from './tool-name.ts';

/** An OpenAPI 3.0 or 3.1 document as an object, or the path of a JSON or YAML file. */
export type OpenApiDocument = Record<string, unknown> | string;

/** One operation, for the `operations` filter. */
export interface OpenApiOperationInfo {
  /** The tool name it gets. */
  name: string;
  operationId?: string;
  method: string;
  path: string;
  tags: string[];
}

/** Options of `openApiTools`. */
export interface OpenApiToolsOptions {
  /** Where requests go (default: the document's first server, variables at their defaults). */
  baseURL?: string;
  /** Only these operations (operationIds or tool names), or those a function keeps (default: all). */
  operations?: readonly string[] | ((operation: OpenApiOperationInfo) => boolean);
  /** Credentials for every request; never shown to the model and redacted from what it reads. */
  auth?: OpenApiAuth;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  /** Hosts requests may reach (default: the hosts of the document's servers and of `baseURL`). */
  allowedDomains?: readonly string[];
  /** Allow loopback and private addresses (default false; a local API needs it). */
  allowPrivateNetwork?: boolean;
  /** Largest response body read, in bytes (default 1 MiB); a larger one is a tool error. */
  maxResponseBytes?: number;
  /** Time one call may take (default 30 000 ms). */
  timeoutMs?: number;
  /** What the model reads of one response is cut here (default 100 000 characters). */
  maxResultChars?: number;
  /** Put before every tool name. */
  namePrefix?: string;
  /**
   * Largest document accepted, in nodes once every `$ref` and YAML alias is expanded
   * (default 1 000 000): a reference bomb is refused before the validator walks it.
   */
  maxDocumentNodes?: number;
  /** Operations left out (an unsupported body type, a schema that does not compile). */
  onWarning?: (message: string) => void;
  /**
   * Stops loading the document and making its tools: the call rejects with the signal's
   * reason, and a worker thread reading a large document is stopped. Calls of the tools
   * made take their own signal (the tool loop's) and `timeoutMs`.
   */
  signal?: AbortSignal;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Turns an OpenAPI 3.0 or 3.1 document into one core `Tool` per operation: named by its
 * `operationId`, with its parameters and request body (as `body`) merged into one JSON
 * Schema, `$ref`s resolved by `@apidevtools/swagger-parser` (cycles kept as `$defs`).
 * Calls go through the sandbox's guarded fetch, allowed to reach only the document's servers
 * unless `allowedDomains` says otherwise; responses are size-capped and returned as values
 * (`{ status, contentType, body }`), and 4xx/5xx answers become tool errors that say what to
 * do. Swagger 2.0 documents are refused (`UnsupportedFeatureError`): convert them to
 * OpenAPI 3 first. Throws `OpenApiDocumentError` for a document that does not validate,
 * names files outside its folder, or expands past `maxDocumentNodes`; `TypeError` for
 * options out of range.
 *
 * @example
 * const tools = await openApiTools('./petstore.yaml', {
 *   baseURL: 'https://petstore.example.com/v1',
 *   auth: { type: 'header', name: 'x-api-key', value: process.env.PETSTORE_KEY! },
 *   operations: ['listPets', 'showPetById'],
 * });
 * const result = await runTools({ model, tools, messages });
 */
export async function openApiTools(document: OpenApiDocument, options: OpenApiToolsOptions = {}): Promise<Tool[]> {
  if (typeof document === 'object' && typeof document.swagger === 'string') refuseSwagger2();
  // Checked first: `maxDocumentNodes: NaN` would turn the bomb check off (`n > NaN` is false).
  const limits = {
    timeoutMs: wholeNumber('timeoutMs', options.timeoutMs, 30_000, MAX_TIMEOUT_MS),
    maxResponseBytes: wholeNumber('maxResponseBytes', options.maxResponseBytes, 1024 * 1024, Number.MAX_SAFE_INTEGER),
    maxResultChars: wholeNumber('maxResultChars', options.maxResultChars, 100_000, Number.MAX_SAFE_INTEGER),
    maxDocumentNodes: wholeNumber('maxDocumentNodes', options.maxDocumentNodes, 1_000_000, Number.MAX_SAFE_INTEGER),
  };
  const signal = options.signal;
  const api = await loadDocument(document, { maxNodes: limits.maxDocumentNodes }, signal);
  if (typeof api.swagger === 'string') refuseSwagger2();
  const version = typeof api.openapi === 'string' ? api.openapi : '';
  const dialect: SchemaDialect | undefined = version.startsWith('3.0') ? 'openapi-3.0' : version.startsWith('3.1') ? 'openapi-3.1' : undefined;
  if (dialect === undefined) throw new OpenApiDocumentError({ problem: `OpenAPI ${version || '(no version)'} is not supported; 3.0 and 3.1 are` });

  const serverURLs = documentServers(api);
  if (options.baseURL !== undefined) {
    const problem = urlProblem(options.baseURL);
    // Not echoed: a URL with credentials in it must not end up in a log.
    if (problem !== undefined) throw new TypeError(`openApiTools: baseURL ${problem}.`);
  }
  const baseURL = options.baseURL ?? serverURLs[0];
  if (baseURL === undefined) throw new OpenApiDocumentError({ problem: 'it has no usable server URL (absolute http or https, without credentials, query or fragment); pass `baseURL`' });
  const allowedDomains = options.allowedDomains ?? [...new Set([...serverURLs, baseURL].map((url) => new URL(url).hostname))];
  const guardedFetch = createGuardedStreamFetch({
    allowedDomains,
    // A redirect to another origin (an allowed host, or plain http) must not carry the key.
    credentialHeaders: credentialHeaderNames(options.auth, options.headers),
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    maxResponseBytes: limits.maxResponseBytes,
    timeoutMs: limits.timeoutMs,
  });
  const secrets = secretsOf(options.auth, options.headers);
  const settings: CallSettings = {
    baseURL,
    fetch: guardedFetch,
    timeoutMs: limits.timeoutMs,
    maxResponseBytes: limits.maxResponseBytes,
    maxResultChars: limits.maxResultChars,
    secrets,
    redact: secretTextRedactor(secrets),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  };

  const reserved = reservedParameters(options.auth, options.headers);
  const operations = listOperations(api, options.namePrefix ?? '');
  const selected = selectOperations(operations, options.operations);
  const tools: Tool[] = [];
  let slice = performance.now();
  for (const operation of selected) {
    // Compiling thousands of schemas takes seconds: let the event loop run between slices.
    if (performance.now() - slice > 10) {
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      slice = performance.now();
    }
    try {
      const { inputSchema, plan } = planOperation(operation.source, new SchemaConverter(api, dialect), reserved);
      const label = `${plan.method} ${plan.path}`;
      tools.push(
        defineTool({
          name: operation.info.name,
          description: describeOperation(operation.source.operation, label),
          parameters: inputSchema,
          execute: (args: Record<string, unknown>, context: ToolExecutionContext) => callOperation(plan, label, args, context, settings),
        }),
      );
    } catch (error) {
      options.onWarning?.(`Operation ${operation.info.operationId ?? operation.info.name} is left out: ${error instanceof Error ? error.message : String(error)}.`);
    }
  }
  return tools;
}

// Timers take at most 2^31-1 ms; a day is longer than any call should wait.
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

function wholeNumber(name: string, value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new TypeError(`openApiTools: ${name} must be a whole number from 1 to ${max}, got ${String(value)}.`);
  return value;
}

interface CallSettings {
  baseURL: string;
  fetch: GuardedStreamFetch;
  timeoutMs: number;
  maxResponseBytes: number;
  maxResultChars: number;
  auth?: OpenApiAuth;
  headers?: Record<string, string>;
  secrets: string[];
  /** Takes the credentials out of a text the model will read (see `secretTextRedactor`). */
  redact: SecretRedactor;
}

async function callOperation(plan: OperationPlan, label: string, args: Record<string, unknown>, context: ToolExecutionContext, settings: CallSettings): Promise<ToolOutput> {
  let request;
  try {
    request = buildRequest(plan, args, settings);
  } catch (error) {
    if (error instanceof RequestArgumentError) return failure(`Invalid arguments for ${label}: ${error.message}. Fix them and call again.`, 'validation_error', settings);
    throw error;
  }
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(settings.timeoutMs)]);
  let response: Response;
  let body: { text: string; truncatedAt?: number };
  try {
    response = await settings.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal,
    });
    body = await readBody(response, settings.maxResponseBytes);
  } catch (error) {
    if (FetchDeniedError.isInstance(error) && error.message.includes('larger than')) {
      return failure(`The response of ${label} is larger than ${settings.maxResponseBytes} bytes. Ask for less (paging or filter parameters) and call again.`, 'execution_error', settings);
    }
    if (FetchDeniedError.isInstance(error)) return failure(`${label} was stopped by the fetch policy: ${error.message}`, 'permission_denied', settings);
    if (signal.aborted && !context.signal.aborted) return failure(`${label} did not answer within ${settings.timeoutMs} ms. Try again later or answer without it.`, 'timeout', settings);
    return failure(`${label} could not be reached: ${error instanceof Error ? error.message : String(error)}. Try again later or answer without it.`, 'execution_error', settings);
  }
  const retryAfter = response.headers.get('retry-after');
  const contentEncoding = response.headers.get('content-encoding');
  return mapResponse(
    {
      status: response.status,
      statusText: response.statusText,
      contentType: response.headers.get('content-type') ?? '',
      // A body cut at the size cap may end inside an echoed key: its start goes too.
      body: body.truncatedAt === undefined ? body.text : withoutCutSecret(body.text, settings.secrets),
      ...(retryAfter === null ? {} : { retryAfter }),
      ...(contentEncoding === null ? {} : { contentEncoding }),
      ...(body.truncatedAt === undefined ? {} : { truncatedAt: body.truncatedAt }),
    },
    { operation: label, maxMessageChars: settings.maxResultChars, redact: settings.redact },
  );
}

/**
 * The body as text. A 2xx body past the size cap is an error (half a JSON document is not
 * a result); an error page past it is cut, since its start says what went wrong.
 */
async function readBody(response: Response, maxBytes: number): Promise<{ text: string; truncatedAt?: number }> {
  if (response.body === null) return { text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch (error) {
    if (response.ok || !FetchDeniedError.isInstance(error) || !error.message.includes('larger than')) throw error;
    return { text: decodeText(chunks), truncatedAt: maxBytes };
  }
  return { text: decodeText(chunks) };
}

// UTF-8 without the byte-order mark some servers put first (JSON.parse refuses it).
function decodeText(chunks: Uint8Array[]): string {
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function failure(message: string, errorType: 'validation_error' | 'execution_error' | 'timeout' | 'permission_denied', settings: CallSettings): ToolOutput {
  return toolOutput({ message: settings.redact(message), success: false, errorType });
}

// Static headers that carry a credential: redacted from what the model reads and dropped
// when a redirect leaves the origin. Generous on purpose (`X-Auth-Email` counts too): a
// non-secret header treated as one costs a redaction, a secret missed costs the secret.
const SECRET_HEADER_WORDS = ['auth', 'cookie', 'key', 'token', 'secret', 'pass', 'session', 'credential', 'signature'];

function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADER_WORDS.some((word) => lower.includes(word));
}

function credentialHeaderNames(auth: OpenApiAuth | undefined, headers: Record<string, string> | undefined): string[] {
  const names = Object.keys(headers ?? {}).filter(isSecretHeader);
  if (auth?.type === 'header') names.push(auth.name);
  return names;
}

// The credentials must not reach the model, even echoed back by an API or inside a URL.
function secretsOf(auth: OpenApiAuth | undefined, headers: Record<string, string> | undefined): string[] {
  const secrets: string[] = [];
  if (auth !== undefined) {
    switch (auth.type) {
      case 'bearer':
        secrets.push(auth.token);
        break;
      case 'header':
      case 'query':
        secrets.push(auth.value);
        break;
      case 'basic':
        secrets.push(auth.password, Buffer.from(`${auth.username}:${auth.password}`).toString('base64'));
        break;
      default: {
        const unknown: never = auth;
        throw new TypeError(`openApiTools: unknown auth type ${String((unknown as { type: unknown }).type)}.`);
      }
    }
  }
  for (const [name, value] of Object.entries(headers ?? {})) if (isSecretHeader(name)) secrets.push(value);
  // Also as they appear percent-encoded in a URL.
  const encoded = secrets.flatMap((secret) => [encodeURIComponent(secret), new URLSearchParams({ v: secret }).toString().slice(2)]);
  return [...new Set([...secrets, ...encoded])].filter((secret) => secret.length >= 4);
}

function reservedParameters(auth: OpenApiAuth | undefined, headers: Record<string, string> | undefined): ReservedParameters {
  const reserved = { headers: new Set(Object.keys(headers ?? {}).map((name) => name.toLowerCase())), query: new Set<string>() };
  if (auth?.type === 'header') reserved.headers.add(auth.name.toLowerCase());
  if (auth?.type === 'query') reserved.query.add(auth.name);
  return reserved;
}

/** `text` without an end that begins a secret (4 characters or more of it), for a body cut short. */
function withoutCutSecret(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, text.length); n >= 4; n--) {
      if (text.endsWith(secret.slice(0, n))) return `${text.slice(0, text.length - n)}[redacted]`;
    }
  }
  return text;
}

/**
 * Each credential in every spelling an API echoes it in (core's redactor: any case,
 * percent-encoded, escaped, in base64, cut), then the short ones (4–7 characters, too short
 * for that) where they stand as they are.
 */
function secretTextRedactor(secrets: readonly string[]): SecretRedactor {
  const spellings = createSecretRedactor(secrets);
  return (text) => {
    let out = spellings(text);
    for (const secret of secrets) out = out.replaceAll(secret, '[redacted]');
    return out;
  };
}

function refuseSwagger2(): never {
  throw new UnsupportedFeatureError({
    feature: 'swagger-2',
    message: 'Swagger 2.0 documents are not supported. Convert the document to OpenAPI 3 first (e.g. with the swagger2openapi converter), then pass the result.',
  });
}

function documentServers(api: Record<string, unknown>): string[] {
  const servers = Array.isArray(api.servers) ? api.servers : [];
  const urls: string[] = [];
  for (const server of servers) {
    if (typeof server !== 'object' || server === null || typeof (server as { url?: unknown }).url !== 'string') continue;
    const { url, variables } = server as { url: string; variables?: Record<string, { default?: unknown }> };
    let filled = url;
    for (const [name, variable] of Object.entries(variables ?? {})) {
      const value = variable.default;
      filled = filled.replaceAll(`{${name}}`, typeof value === 'string' || typeof value === 'number' ? String(value) : '');
    }
    try {
      const parsed = new URL(filled);
      // A server the guarded fetch would refuse on every call is no server: ask for `baseURL` instead.
      if (urlProblem(filled) === undefined) urls.push(parsed.href);
    } catch {
      // A relative server URL: it needs `baseURL`.
    }
  }
  return urls;
}

// Why a URL cannot be where requests go, or undefined when it can.
function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not an absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `must be http or https, not ${parsed.protocol}`;
  if (parsed.username !== '' || parsed.password !== '') return 'must not hold credentials (use `auth`)';
  if (parsed.search !== '' || parsed.hash !== '') return 'must not have a query or a fragment (operation paths are appended to it)';
  return undefined;
}

interface ListedOperation {
  info: OpenApiOperationInfo;
  source: { method: string; path: string; operation: Record<string, unknown>; pathParameters: unknown[] };
}

function listOperations(api: Record<string, unknown>, prefix: string): ListedOperation[] {
  const paths = typeof api.paths === 'object' && api.paths !== null ? (api.paths as Record<string, unknown>) : {};
  const listed: ListedOperation[] = [];
  const taken = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    if (typeof item !== 'object' || item === null) continue;
    const pathItem = item as Record<string, unknown>;
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (typeof operation !== 'object' || operation === null) continue;
      const op = operation as Record<string, unknown>;
      const operationId = typeof op.operationId === 'string' ? op.operationId : undefined;
      const base = operationToolName({ ...(operationId === undefined ? {} : { operationId }), method, path }, prefix);
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 60)}_${n}`;
      taken.add(name);
      listed.push({
        info: { name, ...(operationId === undefined ? {} : { operationId }), method: method.toUpperCase(), path, tags: Array.isArray(op.tags) ? op.tags.map(String) : [] },
        source: { method, path, operation: op, pathParameters: Array.isArray(pathItem.parameters) ? pathItem.parameters : [] },
      });
    }
  }
  return listed;
}

function selectOperations(operations: ListedOperation[], filter: OpenApiToolsOptions['operations']): ListedOperation[] {
  if (filter === undefined) return operations;
  if (typeof filter === 'function') return operations.filter((operation) => filter(operation.info));
  const wanted = new Set(filter);
  const selected = operations.filter((operation) => wanted.has(operation.info.name) || (operation.info.operationId !== undefined && wanted.has(operation.info.operationId)));
  const found = new Set(selected.flatMap((operation) => [operation.info.name, operation.info.operationId]));
  const missing = filter.filter((name) => !found.has(name));
  if (missing.length > 0) {
    throw new OpenApiDocumentError({
      problem: `no operation ${missing.slice(0, 20).map((name) => `"${name}"`).join(', ')}; it has ${listNames(operations.map((operation) => operation.info.operationId ?? operation.info.name))}`,
    });
  }
  return selected;
}

// A document may have thousands of operations: an error names the first few.
function listNames(names: string[]): string {
  const shown = names.slice(0, 50).join(', ');
  return names.length > 50 ? `${shown} and ${names.length - 50} more` : shown;
}

function describeOperation(operation: Record<string, unknown>, label: string): string {
  const parts = [operation.summary, operation.description].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  let text = parts.length > 0 ? parts.join('\n\n') : label;
  if (operation.deprecated === true) text = `Deprecated. ${text}`;
  return cutText(text);
}
