import { describe, expect, it } from 'vitest';
import { checkCallToolResult } from './check-call-tool-result.ts';

describe('checkCallToolResult', () => {
  it('passes a valid result through, content defaulting to none', () => {
    expect(checkCallToolResult({ content: [{ type: 'text', text: 'hi' }], isError: false })).toEqual({
      ok: true,
      answer: { content: [{ type: 'text', text: 'hi' }], isError: false },
    });
    expect(checkCallToolResult({ structuredContent: { n: 1 } })).toEqual({ ok: true, answer: { content: [], structuredContent: { n: 1 } } });
  });

  it("keeps a pre-2024-11 server's bare toolResult", () => {
    expect(checkCallToolResult({ toolResult: 42 })).toEqual({ ok: true, answer: { toolResult: 42 } });
  });

  it('names the first bad block only, however many there are', () => {
    const content = [{ type: 'text', text: 'fine' }, ...Array.from({ length: 100_000 }, () => ({ type: 'bogus' }))];
    expect(checkCallToolResult({ content })).toEqual({ ok: false, problem: 'content[1] is not a valid content block (type "bogus")' });
    expect(checkCallToolResult({ content: [null] })).toEqual({ ok: false, problem: 'content[0] is not a valid content block (null)' });
  });

  it('refuses a result nested past 100 levels, wherever it is', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(checkCallToolResult({ content: [{ type: 'text', text: 'ok' }], structuredContent: { deep } })).toEqual({
      ok: false,
      problem: 'it is nested more than 100 levels deep',
    });
    expect(checkCallToolResult({ content: [{ type: 'text', text: 'ok', _meta: { deep } }] })).toMatchObject({ ok: false });
  });

  it('refuses content, structuredContent and isError of the wrong kind', () => {
    expect(checkCallToolResult({ content: 'text' })).toMatchObject({ ok: false, problem: 'its "content" is a string, not a list of content blocks' });
    expect(checkCallToolResult({ content: [], structuredContent: [1] })).toMatchObject({ problem: 'its "structuredContent" is a list; it must be a JSON object' });
    expect(checkCallToolResult({ content: [], structuredContent: 'x' })).toMatchObject({ problem: 'its "structuredContent" is a string; it must be a JSON object' });
    expect(checkCallToolResult({ content: [], isError: 'yes' })).toMatchObject({ problem: 'its "isError" is a string, not true or false' });
  });
});
