import type { JsonSchema } from '@toolwire/core';
import { cutText } from './to-json-schema.ts';
import type { SchemaConverter } from './to-json-schema.ts';

/** Where a parameter goes in the request. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** How one tool argument becomes part of the request. */
export interface ParameterPlan {
  /** The argument's name in the tool's schema. */
  property: string;
  /** The parameter's name on the wire. */
  name: string;
  in: ParameterLocation;
  style: string;
  explode: boolean;
  /** Declared with `content` rather than `schema`: sent as JSON text. */
  json: boolean;
}

/** How the `body` argument is sent. */
export interface BodyPlan {
  property: string;
  encoding: 'json' | 'form' | 'text';
  contentType: string;
}

/** Everything needed to turn a tool call into an HTTP request. */
export interface OperationPlan {
  method: string;
  /** The path template, e.g. `/pets/{petId}`. */
  path: string;
  parameters: ParameterPlan[];
  body?: BodyPlan;
}

/** An operation as found in the document (dereferenced). */
export interface OperationSource {
  method: string;
  path: string;
  operation: Record<string, unknown>;
  pathParameters: unknown[];
}

// OpenAPI says these header parameters are ignored: the client sets them.
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/**
 * The tool's input schema for one operation (its parameters and request body merged
 * into one object schema) and the plan for sending a call. Throws with the reason when
 * the operation cannot be a tool (a body only in media types other than JSON, form or text).
 */
/** Parameters the caller's options set (credentials, static headers): never the model's to write. */
export interface ReservedParameters {
  /** Lower-cased header names. */
  headers: ReadonlySet<string>;
  /** Query parameter names. */
  query: ReadonlySet<string>;
}

const NOTHING_RESERVED: ReservedParameters = { headers: new Set(), query: new Set() };

export function planOperation(source: OperationSource, converter: SchemaConverter, reserved: ReservedParameters = NOTHING_RESERVED): { inputSchema: JsonSchema; plan: OperationPlan } {
  const declared = new Map<string, Record<string, unknown>>();
  for (const raw of [...source.pathParameters, ...asArray(source.operation.parameters)]) {
    if (!isObject(raw) || typeof raw.name !== 'string' || typeof raw.in !== 'string') continue;
    // An operation's parameter overrides the path item's one with the same name and location.
    declared.set(`${raw.in}:${raw.name}`, raw);
  }
  const params = [...declared.values()].filter((p) => {
    const name = String(p.name);
    // A document often declares its API key as a parameter; the key comes from `auth`, and a
    // model's value beside it would be sent as a second credential.
    if (p.in === 'header') return !RESERVED_HEADERS.has(name.toLowerCase()) && !reserved.headers.has(name.toLowerCase());
    if (p.in === 'query') return !reserved.query.has(name);
    return true;
  });
  const nameCounts = new Map<string, number>();
  for (const p of params) nameCounts.set(String(p.name), (nameCounts.get(String(p.name)) ?? 0) + 1);

  // A parameter may be named `__proto__`: the map must keep it as a property.
  const properties: Record<string, JsonSchema> = Object.create(null) as Record<string, JsonSchema>;
  const required: string[] = [];
  const parameters: ParameterPlan[] = [];
  for (const p of params) {
    const name = String(p.name);
    const location = p.in as string;
    if (location !== 'path' && location !== 'query' && location !== 'header' && location !== 'cookie') continue;
    const property = unusedName(properties, (nameCounts.get(name) ?? 0) > 1 ? `${location}_${name}` : name);
    const { schema, json } = parameterSchema(p, converter);
    if (typeof p.description === 'string' && schema.description === undefined) schema.description = cutText(p.description);
    properties[property] = schema;
    if (location === 'path' || p.required === true) required.push(property);
    const style = typeof p.style === 'string' ? p.style : location === 'query' || location === 'cookie' ? 'form' : 'simple';
    parameters.push({ property, name, in: location, style, explode: typeof p.explode === 'boolean' ? p.explode : style === 'form', json });
  }

  let body: BodyPlan | undefined;
  const requestBody = source.operation.requestBody;
  if (isObject(requestBody) && isObject(requestBody.content)) {
    const chosen = chooseMediaType(requestBody.content);
    if (chosen === undefined) {
      throw new Error(`its request body is only in ${Object.keys(requestBody.content).join(', ')}; JSON, form and text bodies are supported`);
    }
    const property = unusedName(properties, Object.hasOwn(properties, 'body') ? 'requestBody' : 'body');
    const media = requestBody.content[chosen.contentType];
    const schema = isObject(media) && media.schema !== undefined ? converter.convert(media.schema) : chosen.encoding === 'text' ? { type: 'string' as const } : {};
    if (typeof requestBody.description === 'string' && schema.description === undefined) schema.description = cutText(requestBody.description);
    properties[property] = schema;
    if (requestBody.required === true) required.push(property);
    body = { property, encoding: chosen.encoding, contentType: chosen.contentType };
  }

  const inputSchema: JsonSchema = { type: 'object', properties: { ...properties }, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;
  if (Object.keys(converter.defs).length > 0) inputSchema.$defs = converter.defs;
  const plan: OperationPlan = { method: source.method.toUpperCase(), path: source.path, parameters };
  if (body !== undefined) plan.body = body;
  return { inputSchema, plan };
}

// Two parameters must never share one argument (`query_id` beside a renamed `id`, a parameter called `requestBody`).
function unusedName(taken: Record<string, unknown>, wanted: string): string {
  let name = wanted;
  for (let n = 2; Object.hasOwn(taken, name); n++) name = `${wanted}_${n}`;
  return name;
}

function parameterSchema(parameter: Record<string, unknown>, converter: SchemaConverter): { schema: JsonSchema; json: boolean } {
  if (parameter.schema !== undefined) return { schema: converter.convert(parameter.schema), json: false };
  if (isObject(parameter.content)) {
    const media = Object.values(parameter.content)[0];
    if (isObject(media) && media.schema !== undefined) return { schema: converter.convert(media.schema), json: true };
  }
  return { schema: { type: 'string' }, json: false };
}

function chooseMediaType(content: Record<string, unknown>): { contentType: string; encoding: BodyPlan['encoding'] } | undefined {
  const types = Object.keys(content);
  const json = types.find((type) => {
    const base = type.split(';')[0]?.trim().toLowerCase() ?? '';
    return base === 'application/json' || base.endsWith('+json');
  });
  if (json !== undefined) return { contentType: json, encoding: 'json' };
  const form = types.find((type) => type.toLowerCase().startsWith('application/x-www-form-urlencoded'));
  if (form !== undefined) return { contentType: form, encoding: 'form' };
  const text = types.find((type) => type.toLowerCase().startsWith('text/'));
  if (text !== undefined) return { contentType: text, encoding: 'text' };
  return undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
