import { isIdentifierUnit } from '../identifier.ts';
import type { NativeCall } from './native-call.ts';

/** Gemma 4 wraps every string in this token on both sides, unescaped. */
export const GEMMA_QUOTE = '<|"|>';
/** FunctionGemma's string token, in the same syntax. */
export const FUNCTIONGEMMA_QUOTE = '<escape>';
const MAX_DEPTH = 64;

class GemmaReader {
  pos: number;
  private readonly s: string;
  private readonly to: number;
  private readonly quote: string;

  constructor(s: string, from: number, to: number, quote: string) {
    this.s = s;
    this.pos = from;
    this.to = to;
    this.quote = quote;
  }

  private space(): void {
    while (this.pos < this.to) {
      const c = this.s.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.pos++;
    }
  }

  /** A value; throws on malformed text (caught by the caller). */
  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new Error('too deep');
    this.space();
    const s = this.s;
    const quote = this.quote;
    if (s.startsWith(quote, this.pos)) {
      const end = s.indexOf(quote, this.pos + quote.length);
      if (end < 0 || end + quote.length > this.to) throw new Error('unclosed string');
      const text = s.slice(this.pos + quote.length, end);
      this.pos = end + quote.length;
      return text;
    }
    const c = s.charCodeAt(this.pos);
    if (c === 0x7b) return this.object(depth + 1);
    if (c === 0x5b) {
      this.pos++;
      const items: unknown[] = [];
      this.space();
      if (s.charCodeAt(this.pos) === 0x5d) {
        this.pos++;
        return items;
      }
      while (true) {
        items.push(this.value(depth + 1));
        this.space();
        const next = s.charCodeAt(this.pos);
        this.pos++;
        if (next === 0x5d) return items;
        if (next !== 0x2c) throw new Error('expected , or ]');
      }
    }
    // A bare scalar: up to the next separator.
    const start = this.pos;
    while (this.pos < this.to) {
      const d = s.charCodeAt(this.pos);
      if (d === 0x2c || d === 0x7d || d === 0x5d) break;
      this.pos++;
    }
    const raw = s.slice(start, this.pos).trim();
    if (raw === '') throw new Error('missing value');
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    // Python's None is printed bare by the template; it means null.
    if (raw === 'null' || raw === 'None') return null;
    const n = Number(raw);
    return Number.isFinite(n) && /^[-+]?[0-9.]/.test(raw.slice(0, 2)) ? n : raw;
  }

  /** `{key:value,…}` with bare (or quoted) keys. */
  object(depth: number): Record<string, unknown> {
    const s = this.s;
    const quote = this.quote;
    if (s.charCodeAt(this.pos) !== 0x7b) throw new Error('expected {');
    this.pos++;
    const out: Record<string, unknown> = {};
    this.space();
    if (s.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    while (true) {
      this.space();
      let key: string;
      if (s.startsWith(quote, this.pos)) {
        const end = s.indexOf(quote, this.pos + quote.length);
        if (end < 0 || end >= this.to) throw new Error('unclosed key');
        key = s.slice(this.pos + quote.length, end);
        this.pos = end + quote.length;
        this.space();
      } else {
        const colon = s.indexOf(':', this.pos);
        if (colon < 0 || colon >= this.to) throw new Error('expected :');
        key = s.slice(this.pos, colon).trim();
        this.pos = colon;
      }
      if (s.charCodeAt(this.pos) !== 0x3a) throw new Error('expected :');
      this.pos++;
      Object.defineProperty(out, key, { value: this.value(depth), enumerable: true, writable: true, configurable: true });
      this.space();
      const next = s.charCodeAt(this.pos);
      if (next === 0x7d) {
        this.pos++;
        return out;
      }
      // A key right after a value, without the comma (seen from FunctionGemma; vLLM reads it).
      if (next !== 0x2c && !isIdentifierUnit(next) && !s.startsWith(quote, this.pos)) throw new Error('expected , or }');
      if (next === 0x2c) this.pos++;
    }
  }
}

/**
 * A Gemma 4 call in `text[from, to)` (between `<|tool_call>` and `<tool_call|>`):
 * `call:NAME{key:value,…}` with bare keys, `<|"|>`-quoted strings and bare numbers,
 * booleans, lists and objects. FunctionGemma writes the same with `<escape>` as `quote`.
 */
export function parseGemmaCall(text: string, from: number, to: number, quote: string = GEMMA_QUOTE): NativeCall | undefined {
  let i = from;
  while (i < to && /\s/.test(text.charAt(i))) i++;
  // Some outputs put a stray colon before `call:` (vLLM's fallback reads `<|tool_call>:call:`).
  if (text.charCodeAt(i) === 0x3a && text.startsWith('call:', i + 1)) i++;
  if (text.startsWith('call:', i)) i += 5;
  const brace = text.indexOf('{', i);
  if (brace < 0 || brace >= to || brace - i > 200) return undefined;
  const name = text.slice(i, brace).trim();
  const reader = new GemmaReader(text, brace, to, quote);
  let args: Record<string, unknown> | undefined;
  try {
    args = reader.object(0);
  } catch {
    args = undefined;
  }
  return { name, args, end: to };
}
