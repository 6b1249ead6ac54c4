import type { OperationPlan, ParameterPlan } from './operation-plan.ts';

/** Credentials added to every request; never shown to the model. */
export type OpenApiAuth =
  | { type: 'bearer'; token: string }
  | { type: 'header'; name: string; value: string }
  | { type: 'query'; name: string; value: string }
  | { type: 'basic'; username: string; password: string };

/** One HTTP request, ready for the guarded fetch. */
export interface PlannedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** An argument that cannot be sent as the operation asks (e.g. `..` as a path segment). */
export class RequestArgumentError extends Error {}

/**
 * Turns validated tool arguments into an HTTP request for one operation: path parameters
 * percent-encoded into the template, query, header and cookie parameters serialized by
 * their `style`/`explode` (OpenAPI's defaults: `simple` for path and header, `form` for
 * query and cookie), the body as JSON, form or text, then the credentials.
 */
export function buildRequest(plan: OperationPlan, args: Record<string, unknown>, options: { baseURL: string; auth?: OpenApiAuth; headers?: Record<string, string> }): PlannedRequest {
  const pathValues = new Map<string, string>();
  const query = new URLSearchParams();
  // By lower-cased name: `X-Api-Key` and `x-api-key` would otherwise both be sent, joined.
  const headers = new Map<string, [name: string, value: string]>();
  setHeader(headers, 'accept', 'application/json, */*;q=0.5');
  const cookies: string[] = [];
  for (const parameter of plan.parameters) {
    // Own properties only: a left-out `constructor` argument would read Object.prototype's.
    const value = Object.hasOwn(args, parameter.property) ? args[parameter.property] : undefined;
    if (value === undefined || value === null) continue;
    switch (parameter.in) {
      case 'path':
        pathValues.set(parameter.name, pathValue(parameter, value));
        break;
      case 'query':
        for (const [name, text] of queryPairs(parameter, value)) {
          // URLSearchParams would send a lone surrogate as U+FFFD: another value than the model's.
          checkUnicode(parameter.property, name);
          checkUnicode(parameter.property, text);
          query.append(name, text);
        }
        break;
      case 'header': {
        const text = parameter.json ? JSON.stringify(value) : simpleValue(value, parameter.explode);
        if (!isHeaderValue(text)) {
          throw new RequestArgumentError(`"${parameter.property}" is sent as a header: it cannot contain line breaks, control characters or characters past U+00FF (percent-encode them if the API expects that)`);
        }
        setHeader(headers, parameter.name, text);
        break;
      }
      case 'cookie': {
        const text = parameter.json ? JSON.stringify(value) : simpleValue(value, false);
        checkUnicode(parameter.property, text);
        cookies.push(`${parameter.name}=${encodeURIComponent(text)}`);
        break;
      }
      default: {
        const unknown: never = parameter.in;
        throw new RequestArgumentError(`unknown parameter location ${String(unknown)}`);
      }
    }
  }
  if (cookies.length > 0) setHeader(headers, 'cookie', cookies.join('; '));
  // The caller's headers win over the model's arguments, whatever their case.
  for (const [name, value] of Object.entries(options.headers ?? {})) setHeader(headers, name, value);

  let body: string | undefined;
  if (plan.body !== undefined && Object.hasOwn(args, plan.body.property) && args[plan.body.property] !== undefined) {
    const value = args[plan.body.property];
    setHeader(headers, 'content-type', plan.body.contentType);
    switch (plan.body.encoding) {
      case 'json':
        body = JSON.stringify(value);
        break;
      case 'form': {
        const form = new URLSearchParams();
        if (typeof value === 'object' && value !== null) {
          for (const [name, item] of Object.entries(value)) {
            if (item === undefined) continue;
            const text = typeof item === 'string' ? item : JSON.stringify(item);
            checkUnicode(plan.body.property, name);
            checkUnicode(plan.body.property, text);
            form.append(name, text);
          }
        }
        body = form.toString();
        break;
      }
      case 'text':
        body = typeof value === 'string' ? value : JSON.stringify(value);
        break;
      default: {
        const unknown: never = plan.body.encoding;
        throw new RequestArgumentError(`unknown body encoding ${String(unknown)}`);
      }
    }
  }

  const auth = options.auth;
  if (auth !== undefined) {
    switch (auth.type) {
      case 'bearer':
        setHeader(headers, 'authorization', `Bearer ${auth.token}`);
        break;
      case 'header':
        setHeader(headers, auth.name, auth.value);
        break;
      case 'query':
        query.set(auth.name, auth.value);
        break;
      case 'basic':
        setHeader(headers, 'authorization', `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`);
        break;
      default: {
        const unknown: never = auth;
        throw new RequestArgumentError(`unknown auth type ${String((unknown as { type: unknown }).type)}`);
      }
    }
  }

  const search = query.toString();
  const url = `${trimTrailingSlashes(options.baseURL)}${fillPath(plan.path, pathValues)}${search === '' ? '' : `?${search}`}`;
  const request: PlannedRequest = { method: plan.method, url, headers: Object.fromEntries(headers.values()) };
  if (body !== undefined) request.body = body;
  return request;
}

/**
 * Refuses text with a lone UTF-16 surrogate (JSON arguments can hold `"\ud800"`): it has no
 * UTF-8 form, so `encodeURIComponent` throws on it and URLSearchParams sends U+FFFD instead.
 */
function checkUnicode(property: string, text: string): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    throw new RequestArgumentError(`"${property}" holds text that is not valid Unicode (a lone surrogate such as \\ud800 at character ${i}); send it as plain text`);
  }
}

// What an HTTP header value may hold (RFC 9110 field-value: visible Latin-1, space and tab).
function isHeaderValue(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f || c > 0xff) return false;
  }
  return true;
}

function setHeader(headers: Map<string, [name: string, value: string]>, name: string, value: string): void {
  headers.set(name.toLowerCase(), [name, value]);
}

function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 47 /* / */) end--;
  return text.slice(0, end);
}

// Replaces `{name}` in the template; a linear scan, no pattern matching.
function fillPath(template: string, values: Map<string, string>): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open === -1) break;
    const close = template.indexOf('}', open);
    if (close === -1) break;
    out += template.slice(i, open);
    const name = template.slice(open + 1, close);
    const value = values.get(name);
    if (value === undefined) throw new RequestArgumentError(`the path parameter "${name}" is missing`);
    out += value;
    i = close + 1;
  }
  return out + template.slice(i);
}

function pathValue(parameter: ParameterPlan, value: unknown): string {
  const text = parameter.json ? JSON.stringify(value) : simpleValue(value, parameter.explode);
  // `.` and `..` would move the request to another path of the API.
  if (text === '.' || text === '..' || text === '') {
    throw new RequestArgumentError(`"${parameter.property}" cannot be "${text}": it must name one item`);
  }
  checkUnicode(parameter.property, text);
  const encoded = encodeURIComponent(text);
  switch (parameter.style) {
    case 'label':
      return `.${encoded}`;
    case 'matrix':
      return `;${encodeURIComponent(parameter.name)}=${encoded}`;
    default:
      return encoded;
  }
}

function queryPairs(parameter: ParameterPlan, value: unknown): [string, string][] {
  const { name } = parameter;
  if (parameter.json) return [[name, JSON.stringify(value)]];
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    switch (parameter.style) {
      case 'spaceDelimited':
        return [[name, items.join(' ')]];
      case 'pipeDelimited':
        return [[name, items.join('|')]];
      default:
        return parameter.explode ? items.map((item) => [name, item]) : [[name, items.join(',')]];
    }
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (parameter.style === 'deepObject') return entries.map(([key, item]) => [`${name}[${key}]`, scalar(item)]);
    if (parameter.explode) return entries.map(([key, item]) => [key, scalar(item)]);
    return [[name, entries.flatMap(([key, item]) => [key, scalar(item)]).join(',')]];
  }
  return [[name, scalar(value)]];
}

function simpleValue(value: unknown, explode: boolean): string {
  if (Array.isArray(value)) return value.map(scalar).join(',');
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return explode ? entries.map(([key, item]) => `${key}=${scalar(item)}`).join(',') : entries.flatMap(([key, item]) => [key, scalar(item)]).join(',');
  }
  return scalar(value);
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}
