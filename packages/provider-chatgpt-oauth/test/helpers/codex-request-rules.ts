// What the Codex backend (chatgpt.com/backend-api/codex/responses) refuses, as far as it can
// be known without the live service: the request shape Codex sends (openai/codex,
// codex-rs/codex-api/src/common.rs `ResponsesApiRequest`), the headers of its client
// (codex-rs/core/src/client.rs, codex-rs/login/src/auth/default_client.rs), and the
// Responses API's own rules for histories and strict schemas. Each refusal is the 400 body
// the backend answers with.
import type { IncomingHttpHeaders } from 'node:http';

/** The body fields Codex sends; anything else is refused as the backend does ("Unsupported parameter"). */
const KNOWN_FIELDS = new Set([
  'model',
  'instructions',
  'input',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning',
  'store',
  'stream',
  'include',
  'prompt_cache_key',
  'text',
  'service_tier',
  'client_metadata',
]);

export type Refusal = { status: number; json: unknown };

function detail(message: string): Refusal {
  return { status: 400, json: { detail: message } };
}

function invalid(message: string, param: string): Refusal {
  return { status: 400, json: { error: { message, type: 'invalid_request_error', param, code: null } } };
}

function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The headers Codex's client sends on every request; a missing one is a test failure, reported as a 400. */
export function checkCodexHeaders(headers: IncomingHttpHeaders, options: { residency?: 'us' } = {}): Refusal | undefined {
  const missing: string[] = [];
  if (!(headers.authorization ?? '').startsWith('Bearer ')) missing.push('authorization');
  for (const name of ['chatgpt-account-id', 'originator', 'user-agent', 'version', 'session_id']) if (headers[name] === undefined) missing.push(name);
  if (missing.length > 0) return detail(`test backend: missing Codex headers: ${missing.join(', ')}`);
  if (headers.originator !== 'codex_cli_rs') return detail(`test backend: originator is ${String(headers.originator)}, not codex_cli_rs`);
  const version = String(headers.version);
  if (!(headers['user-agent'] ?? '').startsWith(`codex_cli_rs/${version} `)) return detail('test backend: the User-Agent does not carry the version header');
  const parts = version.split('.');
  if (parts.length !== 3 || parts.some((part) => part === '' || Number.isNaN(Number(part)))) return detail(`test backend: version ${version} is not a Codex version`);
  const residency = headers['x-openai-internal-codex-residency'];
  if (residency !== options.residency) {
    return detail(`test backend: residency header ${String(residency)} where Codex sends ${String(options.residency)} (only "us", only when enforced)`);
  }
  return undefined;
}

/** The body rules; `undefined` when the backend would take the request. */
export function checkCodexBody(body: Record<string, any>): Refusal | undefined {
  for (const key of Object.keys(body)) if (!KNOWN_FIELDS.has(key)) return detail(`Unsupported parameter: ${key}`);
  if (typeof body.instructions !== 'string' || body.instructions === '') return detail('Instructions are required');
  if (body.store !== false) return detail('Store must be set to false');
  if (body.stream !== true) return detail('Stream must be set to true');
  if (!Array.isArray(body.input)) return invalid("Invalid type for 'input': expected an array.", 'input');
  const calls = new Map<string, number>();
  const outputs = new Set<string>();
  for (const [index, item] of (body.input as unknown[]).entries()) {
    if (!isRecord(item)) return invalid(`Invalid input item at index ${index}.`, 'input');
    if (item.id !== undefined && item.type !== 'item_reference') {
      return invalid(`Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false.`, 'input');
    }
    if (item.type === 'function_call') calls.set(String(item.call_id), index);
    if (item.type === 'function_call_output') {
      if (!calls.has(String(item.call_id))) return invalid(`No tool call found for function call output with call_id ${String(item.call_id)}.`, 'input');
      outputs.add(String(item.call_id));
    }
  }
  for (const callId of calls.keys()) if (!outputs.has(callId)) return invalid(`No tool output found for function call ${callId}.`, 'input');
  for (const tool of Array.isArray(body.tools) ? (body.tools as unknown[]) : []) {
    if (!isRecord(tool) || tool.type !== 'function') continue;
    const problem = tool.strict === true ? strictProblem(tool.parameters, '()') : rootProblem(tool.parameters);
    if (problem !== undefined) return { status: 400, json: { error: { message: `Invalid schema for function '${String(tool.name)}': ${problem}`, type: 'invalid_request_error', param: `tools`, code: 'invalid_function_parameters' } } };
  }
  return undefined;
}

function rootProblem(schema: unknown): string | undefined {
  return isRecord(schema) && schema.type === 'object' ? undefined : 'schema must be a JSON Schema of \'type: "object"\', got \'type: "None"\'.';
}

/** The strict-mode rules: every object closes `additionalProperties` and requires all its properties. */
function strictProblem(schema: unknown, context: string): string | undefined {
  if (!isRecord(schema)) return undefined;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') || schema.properties !== undefined) {
    if (schema.additionalProperties !== false) return `In context=${context}, 'additionalProperties' is required to be supplied and to be false.`;
    const keys = Object.keys(isRecord(schema.properties) ? schema.properties : {});
    const required: unknown[] = Array.isArray(schema.required) ? schema.required : [];
    const missing = keys.find((key) => !required.includes(key));
    if (missing !== undefined) return `In context=${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    for (const key of keys) {
      const problem = strictProblem(schema.properties[key], `('properties', '${key}')`);
      if (problem !== undefined) return problem;
    }
  }
  if (schema.items !== undefined) return strictProblem(schema.items, `${context}, 'items'`);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const entry of Array.isArray(schema[key]) ? (schema[key] as unknown[]) : []) {
      const problem = strictProblem(entry, `${context}, '${key}'`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
