import { context, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { withRequestSpan } from './request-span.ts';

describe('withRequestSpan without an OpenTelemetry SDK', () => {
  it('runs the handler with a span that records nothing, and leaves the active context alone', async () => {
    const outer = context.active();
    const seen = await withRequestSpan('/v1/chat/completions', (span) => Promise.resolve({ recording: span.isRecording(), active: context.active(), current: trace.getActiveSpan() }));
    expect(seen.recording).toBe(false);
    expect(seen.active).toBe(outer);
    expect(seen.current).toBeUndefined();
  });

  it("passes the handler's result and failure through", async () => {
    await expect(withRequestSpan('/v1/responses', () => Promise.resolve(42))).resolves.toBe(42);
    await expect(withRequestSpan('/v1/responses', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  });
});
