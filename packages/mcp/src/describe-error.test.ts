import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { describeError } from './describe-error.ts';

describe('describeError', () => {
  // Found by fuzzing: a server's malformed JSON answer read "MCP server … is not usable: [\n  {\n    "code": "invalid_union", …".
  it("words the SDK's schema error as one line naming the first issue", () => {
    const parsed = JSONRPCMessageSchema.safeParse({ jsonrpc: '2.0', id: 1, result: 'not an object' });
    expect(parsed.success).toBe(false);
    const text = describeError(parsed.error);
    expect(text).toMatch(/^the server sent a message MCP does not allow \(.+\)$/);
    expect(text).not.toContain('\n');
    expect(text.length).toBeLessThan(300);
  });

  it('says a body that does not parse is not JSON', () => {
    let error: unknown;
    try {
      JSON.parse('{"a":1} trailing');
    } catch (e) {
      error = e;
    }
    expect(describeError(error)).toMatch(/^the server sent text that is not JSON \(.*JSON/);
  });

  it('keeps other errors as their message', () => {
    expect(describeError(new Error('socket hang up'))).toBe('socket hang up');
    expect(describeError('text')).toBe('text');
  });
});
