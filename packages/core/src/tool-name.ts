/**
 * The tool-name rule, written once for core, extract and the gateway: OpenAI's
 * `^[a-zA-Z0-9_-]{1,64}$`. Providers that namespace tools with dots (MCP servers, Gemini)
 * need `.` as well, which `isValidToolName(name, { dots: true })` allows.
 */
export const TOOL_NAME_RULE = {
  /** The rule as a JSON Schema / OpenAI pattern (for documentation and error messages). */
  pattern: '^[a-zA-Z0-9_-]{1,64}$',
  maxLength: 64,
  /** What to tell someone whose name breaks the rule. */
  description: '1-64 characters of letters a-z/A-Z, digits, "_" or "-" (e.g. "get_weather" or "weather-now")',
} as const;

/** Options of `isValidToolName`. */
export interface ToolNameRuleOptions {
  /** Also allow `.` (namespaced names such as `files.read`); OpenAI rejects them. */
  dots?: boolean;
}

/** Whether a UTF-16 code unit may appear in a tool name: `a-z A-Z 0-9 _ -`. */
export function isToolNameUnit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d;
}

/**
 * Whether `name` follows the tool-name rule (`TOOL_NAME_RULE`). A plain loop over the
 * characters: linear, nothing to backtrack, safe on any input.
 *
 * @example isValidToolName('weather-now') // true
 * @example isValidToolName('files.read', { dots: true }) // true
 */
export function isValidToolName(name: unknown, options?: ToolNameRuleOptions): name is string {
  if (typeof name !== 'string' || name.length === 0 || name.length > TOOL_NAME_RULE.maxLength) return false;
  const dots = options?.dots === true;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (!isToolNameUnit(c) && !(dots && c === 0x2e)) return false;
  }
  return true;
}
