// Regression tests for what run-tools-hostile.fuzz.test.ts found, each with its shrunk
// counterexample: tools whose answers have no JSON, and outputs shaped like `toolOutput(…)`
// with fields of the wrong type, ended the whole run with a TypeError.
import { describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.ts';
import { runTools } from './run-tools.ts';
import { createScriptedModel } from './testing/scripted-model.ts';
import type { ToolMessage } from './types/message.ts';

async function answerOf(value: unknown): Promise<ToolMessage> {
  const tool = defineTool({ name: 'beta', parameters: { type: 'object' }, execute: () => value });
  const model = createScriptedModel([{ toolCalls: [{ id: 'call_2', name: 'beta', arguments: {} }] }, { text: 'Done.' }]);
  const result = await runTools({ model, messages: [{ role: 'user', content: 'Go.' }], tools: [tool] });
  const message = result.messages.find((m): m is ToolMessage => m.role === 'tool');
  if (message === undefined) throw new Error('no tool message');
  return message;
}

describe('tool answers that are not text', () => {
  it.each([
    ['a Symbol', Symbol('tool')],
    ['a function', () => 1],
  ])('a tool that returns %s fails with a message the model can read (was: TypeError reading "length")', async (_what, value) => {
    const message = await answerOf(value);
    expect(message.content).toBe('Tool "beta" returned a value that cannot be written as JSON.');
    expect(message.result?.error?.type).toBe('execution_error');
  });

  it('a forged tool output with a message that is not a string is read as JSON (was: TypeError "text.charCodeAt is not a function")', async () => {
    const message = await answerOf({ [Symbol.for('toolwire.toolOutput')]: true, message: { text: 'hi' }, success: 'yes', errorType: {} });
    expect(message.content).toBe('{"text":"hi"}');
    expect(message.result?.success).toBe(true);
  });

  it('a forged failed output with an unknown error type is an execution error', async () => {
    const message = await answerOf({ [Symbol.for('toolwire.toolOutput')]: true, message: 5, success: false, errorType: 'nope' });
    expect(message.content).toBe('5');
    expect(message.result?.error).toEqual({ type: 'execution_error', message: '5' });
  });
});
