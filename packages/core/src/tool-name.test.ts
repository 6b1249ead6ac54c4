import { describe, expect, it } from 'vitest';
import { isToolNameUnit, isValidToolName, TOOL_NAME_RULE } from './tool-name.ts';

describe('isValidToolName', () => {
  it('accepts what OpenAI accepts: letters, digits, _ and -, 1 to 64 characters', () => {
    for (const name of ['get_weather', 'weather-now', 'A1', '_', '-', 'x'.repeat(64), 'v2-beta_3']) {
      expect(isValidToolName(name)).toBe(true);
    }
  });

  it('rejects empty, too long, spaces, dots (unless asked), non-ASCII and non-strings', () => {
    for (const name of ['', 'x'.repeat(65), 'get weather', 'files.read', 'wetter_für', 'a/b', 'a:b', '天气']) {
      expect(isValidToolName(name)).toBe(false);
    }
    expect(isValidToolName(42)).toBe(false);
    expect(isValidToolName(undefined)).toBe(false);
  });

  it('allows dots when asked (namespaced names)', () => {
    expect(isValidToolName('files.read_v2-beta', { dots: true })).toBe(true);
    expect(isValidToolName('files read', { dots: true })).toBe(false);
  });

  it('agrees with the documented pattern on every ASCII character', () => {
    const pattern = new RegExp(TOOL_NAME_RULE.pattern);
    for (let c = 0; c < 128; c++) {
      const ch = String.fromCharCode(c);
      expect(isValidToolName(`a${ch}b`)).toBe(pattern.test(`a${ch}b`));
      expect(isToolNameUnit(c)).toBe(pattern.test(ch));
    }
  });

  it('stays linear on long input', () => {
    expect(isValidToolName('a'.repeat(1_000_000))).toBe(false);
  });
});
