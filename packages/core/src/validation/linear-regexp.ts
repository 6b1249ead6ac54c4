import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** Longest `pattern` accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1000;
/** Largest compiled pattern accepted, in RE2 instructions (`(\w+\s?){1000}` has 6 000). */
export const MAX_PATTERN_INSTRUCTIONS = 500;
/** RE2 instructions all patterns of one schema may add up to. */
export const MAX_SCHEMA_PATTERN_INSTRUCTIONS = 2000;

// Instructions left for the schema being compiled; compiling is synchronous, so the
// caller sets it before Ajv compiles a schema and nothing else runs in between.
let schemaBudget = MAX_SCHEMA_PATTERN_INSTRUCTIONS;

/** Gives the next schema its full pattern budget; call right before compiling it. */
export function resetPatternBudget(): void {
  schemaBudget = MAX_SCHEMA_PATTERN_INSTRUCTIONS;
}

/**
 * Ajv's `code.regExp` engine for schema `pattern`s and `patternProperties`: RE2 (re2js,
 * pure JavaScript) matches in time linear in the input, so a pattern such as `^(a+)+$`
 * written by a client or a model cannot stall validation the way a backtracking
 * `RegExp` does. Its cost is still input length times pattern size, so patterns are
 * bounded in length and compiled size, alone and per schema. Patterns RE2 cannot run in
 * linear time (lookahead, backreferences) and patterns past a bound throw at compile
 * time, which `defineTool` reports as an invalid definition.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    if (pattern.length > MAX_PATTERN_LENGTH) {
      throw new Error(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
    }
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    const size = instructionsOf(compiled);
    if (size > MAX_PATTERN_INSTRUCTIONS) {
      throw new Error(`the pattern ${JSON.stringify(pattern.slice(0, 40))} is too complex (${size} RE2 instructions, at most ${MAX_PATTERN_INSTRUCTIONS}); use smaller repetition counts`);
    }
    schemaBudget -= size;
    if (schemaBudget < 0) {
      throw new Error(`its patterns are too complex together (more than ${MAX_SCHEMA_PATTERN_INSTRUCTIONS} RE2 instructions)`);
    }
    // Ajv shares compiled patterns by `toString()`; keep that the pattern itself.
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
  },
  // Only used when Ajv generates standalone code, which core never does.
  { code: 'require("re2js").RE2JS' },
);

/** The size of a compiled pattern; re2js exposes its program on `re2Input` (typed `any`). */
function instructionsOf(compiled: RE2JS): number {
  const program = (compiled.re2Input as { prog?: { numInst?: () => unknown } } | undefined)?.prog;
  const count = typeof program?.numInst === 'function' ? program.numInst() : undefined;
  // Without the count (a future re2js), fall back to the pattern's length as a bound.
  return typeof count === 'number' ? count : compiled.pattern().length;
}
