import { executeToolCall, ToolRegistry } from '@toolwire/core';
import type { Tool, ToolResult } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { mcpTools } from '../src/index.ts';
import { hostileStdioServer } from './helpers.ts';

// A hand-written server (fixtures/hostile-stdio-server.ts) at its worst: every byte it sends
// is hostile, and each attack must cost at most the call in flight.
let callNumber = 0;
function call(tools: Tool[], name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return executeToolCall({ id: `call_${++callNumber}`, name, arguments: args }, { registry: new ToolRegistry({ tools }) });
}

describe('mcpTools against a hostile stdio server', () => {
  it('stops a server that floods requests without reading our answers, instead of buffering them without bound', { timeout: 30_000 }, async () => {
    const warnings: string[] = [];
    const set = await mcpTools(hostileStdioServer('plain'), { callTimeoutMs: 20_000, maxMessageBytes: 256 * 1024, onWarning: (message) => warnings.push(message) });
    try {
      const flooded = await call(set.tools, 'ping_flood');
      expect(flooded).toMatchObject({ success: false, error: { type: 'execution_error' } });
      expect(flooded.message).toContain('does not read its input');
      expect(warnings.join('\n')).toContain('does not read its input');
      expect(await call(set.tools, 'echo')).toMatchObject({ success: true, message: 'echo' });
    } finally {
      await set.close();
    }
  });
});
