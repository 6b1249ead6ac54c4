import { describe, expect, it } from 'vitest';
import { toSandboxScript } from './custom-tool-source.ts';

describe('toSandboxScript', () => {
  it('drops export keywords at the start of lines, keeping indentation and the rest', () => {
    const script = toSandboxScript('export const definition = { name: "a" };\n  export async function handler(x) {\n    return "export stays in strings";\n  }');
    expect(script).toBe('const definition = { name: "a" };\n  async function handler(x) {\n    return "export stays in strings";\n  }');
  });

  it('refuses imports, since the sandbox has none', () => {
    expect(() => toSandboxScript("import fs from 'node:fs';\nexport const definition = {};\nexport function handler() {}")).toThrow(/imports are not available/);
  });

  it('refuses a default export, asking for the named ones', () => {
    expect(() => toSandboxScript('export default { definition: {}, handler() {} };')).toThrow(/named exports/);
  });

  it('refuses a file without a definition or a handler', () => {
    expect(() => toSandboxScript('export const definition = {};')).toThrow(/exports 'definition'/);
    expect(() => toSandboxScript('export function handler() {}')).toThrow(/exports 'definition'/);
  });
});
