import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/**
 * Ajv's `code.regExp` engine for schema `pattern`s and `patternProperties`: RE2 (re2js,
 * pure JavaScript) matches in time linear in the input, so a pattern such as `^(a+)+$`
 * written by a client or a model cannot stall validation the way a backtracking
 * `RegExp` does. Patterns RE2 cannot run in linear time (lookahead, backreferences)
 * throw at compile time, which `defineTool` reports as an invalid definition.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    // Ajv shares compiled patterns by `toString()`; keep that the pattern itself.
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
  },
  // Only used when Ajv generates standalone code, which core never does.
  { code: 'require("re2js").RE2JS' },
);
