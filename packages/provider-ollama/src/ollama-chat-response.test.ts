import { describe, expect, it } from 'vitest';
import { mapFinishReason } from './ollama-chat-response.ts';

describe('mapFinishReason', () => {
  it('derives tool-calls from the calls, since Ollama never says so', () => {
    expect(mapFinishReason('stop', true)).toBe('tool-calls');
    expect(mapFinishReason('stop', false)).toBe('stop');
  });

  it('keeps length even with calls, and maps other reasons (load, unload) to other', () => {
    expect(mapFinishReason('length', true)).toBe('length');
    expect(mapFinishReason('unload', false)).toBe('other');
  });
});
