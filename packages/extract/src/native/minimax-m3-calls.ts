import type { JsonSchema } from '@toolwire/core';
import type { NativeCall, NativeContext } from './native-call.ts';
import { setOwn } from './native-call.ts';
import { convertXmlValue, isPlainString, propertySchema } from './xml-value.ts';

/** MiniMax M3 writes this marker before every structural tag. */
export const M3_MARKER = ']<]minimax[>[';
const INVOKE = `${M3_MARKER}<invoke`;
const MAX_TAG = 300;
const MAX_DEPTH = 32;

/** An element's content: text, or child elements in order. */
type M3Node = { text: string } | { children: [string, M3Node][] };

class M3Reader {
  pos: number;
  private readonly s: string;
  private readonly to: number;

  constructor(s: string, from: number, to: number) {
    this.s = s;
    this.pos = from;
    this.to = to;
  }

  /** The next marker at or after `pos`, or -1. */
  private marker(): number {
    const at = this.s.indexOf(M3_MARKER, this.pos);
    return at < 0 || at + M3_MARKER.length > this.to ? -1 : at;
  }

  /** A tag's name after `<` or `</` at `at` (up to `>`), or undefined. */
  private tagName(at: number): { name: string; end: number } | undefined {
    const close = this.s.indexOf('>', at);
    if (close < 0 || close >= this.to || close - at > MAX_TAG) return undefined;
    const name = this.s.slice(at, close);
    return name === '' || name.includes('<') ? undefined : { name, end: close + 1 };
  }

  /**
   * The content of element `tag` from `pos` through its closing `MARKER</tag>`: text up to the
   * next marker, or child elements. Undefined when malformed or cut off.
   */
  content(tag: string, depth: number): M3Node | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const start = this.pos;
    const children: [string, M3Node][] = [];
    while (true) {
      const at = this.marker();
      if (at < 0) return undefined;
      const after = at + M3_MARKER.length;
      if (this.s.startsWith('</', after)) {
        const closing = this.tagName(after + 2);
        if (closing?.name !== tag) return undefined;
        this.pos = closing.end;
        return children.length === 0 ? { text: this.s.slice(start, at) } : { children };
      }
      if (this.s.charCodeAt(after) !== 0x3c) return undefined;
      const opening = this.tagName(after + 1);
      if (opening === undefined) return undefined;
      this.pos = opening.end;
      const child = this.content(opening.name, depth + 1);
      if (child === undefined) return undefined;
      children.push([opening.name, child]);
    }
  }
}

function typeNames(schema: JsonSchema | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  if (schema === undefined) return names;
  for (const s of [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    if (Array.isArray(s.type)) for (const t of s.type) names.add(t);
    else if (typeof s.type === 'string') names.add(s.type);
  }
  return names;
}

/** The schema of child `tag` of an object schema (a property, or `additionalProperties`). */
function childSchema(schema: JsonSchema | undefined, tag: string): JsonSchema | undefined {
  const property = propertySchema(schema, tag);
  if (property !== undefined) return property;
  const additional = (schema as { additionalProperties?: unknown } | undefined)?.additionalProperties;
  return typeof additional === 'object' && additional !== null ? (additional as JsonSchema) : undefined;
}

/**
 * A node as a value: text typed by its schema (as MiniMax-M2's values: surrounding whitespace
 * trimmed, but kept where the schema types the value as a plain string, whose space is data);
 * children as an array where the schema says so (or, without one, when every child is an
 * `item`), else as an object whose repeated keys become arrays.
 */
function nodeValue(node: M3Node, schema: JsonSchema | undefined): unknown {
  // The plain string's text goes in untrimmed: `convertXmlValue` still reads a nullable one's `null`.
  if ('text' in node) return convertXmlValue(isPlainString(schema) ? node.text : node.text.trim(), schema);
  const types = typeNames(schema);
  const items = (schema as { items?: unknown } | undefined)?.items;
  if (types.has('array') && !types.has('object')) {
    return node.children.map(([, child]) => nodeValue(child, typeof items === 'object' && items !== null && !Array.isArray(items) ? (items as JsonSchema) : undefined));
  }
  if (schema === undefined && node.children.every(([tag]) => tag === 'item')) return node.children.map(([, child]) => nodeValue(child, undefined));
  const out: Record<string, unknown> = {};
  const repeated = new Set<string>();
  for (const [tag, child] of node.children) {
    const value = nodeValue(child, childSchema(schema, tag));
    if (!Object.hasOwn(out, tag)) {
      setOwn(out, tag, value);
    } else if (repeated.has(tag)) {
      (out[tag] as unknown[]).push(value);
    } else {
      repeated.add(tag);
      setOwn(out, tag, [out[tag], value]);
    }
  }
  return out;
}

/** `name="NAME"` in an invoke header. */
function invokeName(header: string): string | undefined {
  const at = header.indexOf('name=');
  if (at < 0) return undefined;
  const quote = header.charAt(at + 5);
  if (quote !== '"' && quote !== "'") return header.slice(at + 5).trim();
  const close = header.indexOf(quote, at + 6);
  return close < 0 ? undefined : header.slice(at + 6, close);
}

/**
 * MiniMax M3 calls in a `]<]minimax[>[<tool_call>` block (`text[from, to)`): one or more
 * `MARKER<invoke name="NAME">` with each argument an element `MARKER<key>…MARKER</key>`
 * (MARKER is `]<]minimax[>[`), nested elements for objects and arrays. Values are text up to
 * the next marker, typed by the tool's schema. A malformed or cut-off invoke ends the reading.
 * Linear: every search resumes past the last marker read.
 */
export function parseMinimaxM3Calls(text: string, from: number, to: number, context: NativeContext): NativeCall[] {
  const calls: NativeCall[] = [];
  let pos = from;
  while (pos < to) {
    const start = text.indexOf(INVOKE, pos);
    if (start < 0 || start >= to) break;
    const headerEnd = text.indexOf('>', start + INVOKE.length);
    if (headerEnd < 0 || headerEnd >= to || headerEnd - start > MAX_TAG) break;
    const name = invokeName(text.slice(start + INVOKE.length, headerEnd))?.trim() ?? '';
    const reader = new M3Reader(text, headerEnd + 1, to);
    const node = reader.content('invoke', 0);
    if (node === undefined) break;
    const schema = context.schemaOf(name);
    const args = 'text' in node ? {} : nodeValue(node, schema ?? { type: 'object' });
    if (name !== '') calls.push({ name, args: args as Record<string, unknown>, end: reader.pos });
    pos = reader.pos;
  }
  return calls;
}
