import { describe, expect, it } from 'vitest';
import { mcpTools } from './index.ts';

describe('mcpTools options', () => {
  it('refuses durations Node would turn into a 1 ms timer, naming the option', async () => {
    // Before: callTimeoutMs: Infinity (meant as "no limit") timed every call out at once.
    for (const callTimeoutMs of [Infinity, NaN, 0, 2 ** 31]) {
      await expect(mcpTools({ url: 'http://127.0.0.1:1/mcp' }, { callTimeoutMs })).rejects.toThrow(/`callTimeoutMs` must be a number of milliseconds from 1/);
    }
    await expect(mcpTools({ url: 'http://127.0.0.1:1/mcp' }, { connectTimeoutMs: -5 })).rejects.toThrow(TypeError);
  });

  it('refuses counts that are not whole numbers, and a message cap past what a string can hold', async () => {
    await expect(mcpTools({ url: 'http://127.0.0.1:1/mcp' }, { maxTools: 1.5 })).rejects.toThrow(/`maxTools` must be a whole number/);
    await expect(mcpTools({ url: 'http://127.0.0.1:1/mcp' }, { maxMessageBytes: 2 ** 30 })).rejects.toThrow(/`maxMessageBytes` must be a whole number from 1024 to 268435456/);
  });
});
