import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  AuthExpiredError,
  ProviderError,
  RateLimitError,
  ToolwireError,
  UnknownToolError,
  UsageLimitError,
} from './errors.ts';

describe('ToolwireError', () => {
  it('has a stable name per class', () => {
    expect(new UnknownToolError({ toolName: 'x', availableTools: [] }).name).toBe('UnknownToolError');
    expect(new RateLimitError({ provider: 'openai', message: 'slow down' }).name).toBe('RateLimitError');
  });

  it('recognises instances of a class and of its base classes', () => {
    const error = new AuthExpiredError({ provider: 'chatgpt', message: 'sign in again' });
    expect(AuthExpiredError.isInstance(error)).toBe(true);
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(ToolwireError.isInstance(error)).toBe(true);
    expect(RateLimitError.isInstance(error)).toBe(false);
  });

  it('recognises an error from another copy of the package by its marker', () => {
    const foreign = new Error('copy');
    Object.defineProperty(foreign, Symbol.for('toolwire.error.UnknownToolError'), { value: true });
    expect(UnknownToolError.isInstance(foreign)).toBe(true);
    expect(UnknownToolError.isInstance(new Error('plain'))).toBe(false);
    expect(UnknownToolError.isInstance(null)).toBe(false);
  });

  it('lists the available tools in the unknown-tool message', () => {
    const error = new UnknownToolError({ toolName: 'serch', availableTools: ['search', 'fetch'] });
    expect(error.message).toBe('Unknown tool "serch". Available tools: search, fetch.');
    expect(error.availableTools).toEqual(['search', 'fetch']);
  });

  it('marks usage limits as not retryable but rate limits as retryable', () => {
    expect(new RateLimitError({ provider: 'openai', message: 'x' }).retryable).toBe(true);
    const usage = new UsageLimitError({ provider: 'chatgpt', message: 'x', resetsAt: new Date(0) });
    expect(usage.retryable).toBe(false);
    expect(RateLimitError.isInstance(usage)).toBe(true);
  });
});
