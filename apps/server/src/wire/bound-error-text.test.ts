import { describe, expect, it } from 'vitest';
import { boundErrorText, MAX_ERROR_MESSAGE_LENGTH } from './bound-error-text.ts';

describe('boundErrorText', () => {
  it('cuts a long message, and those of its causes, saying how much was left out', () => {
    const cause = new Error('c'.repeat(MAX_ERROR_MESSAGE_LENGTH + 10));
    const error = new Error('e'.repeat(MAX_ERROR_MESSAGE_LENGTH * 3), { cause });
    boundErrorText(error);
    expect(error.message).toBe(`${'e'.repeat(MAX_ERROR_MESSAGE_LENGTH)}… (${MAX_ERROR_MESSAGE_LENGTH * 2} more characters)`);
    expect(cause.message).toBe(`${'c'.repeat(MAX_ERROR_MESSAGE_LENGTH)}… (10 more characters)`);
    // The stack, formatted after the cut or before it, carries the cut message and keeps its frames.
    expect(error.stack?.length).toBeLessThan(MAX_ERROR_MESSAGE_LENGTH * 2);
    expect(error.stack).toContain('\n    at ');
  });

  it('counts what a provider had left out already into what it says was left out', () => {
    const error = new Error(`${'p'.repeat(MAX_ERROR_MESSAGE_LENGTH * 2)}… (1000000 more characters)`);
    boundErrorText(error);
    expect(error.message).toBe(`${'p'.repeat(MAX_ERROR_MESSAGE_LENGTH)}… (${MAX_ERROR_MESSAGE_LENGTH + '… (1000000 more characters)'.length + 1000000} more characters)`);
  });

  it('cuts the first line of a stack that was already formatted', () => {
    const error = new Error('s'.repeat(MAX_ERROR_MESSAGE_LENGTH * 4));
    expect(error.stack?.length).toBeGreaterThan(MAX_ERROR_MESSAGE_LENGTH * 4);
    boundErrorText(error);
    expect(error.stack?.length).toBeLessThan(MAX_ERROR_MESSAGE_LENGTH * 2);
    expect(error.stack).toContain('\n    at ');
  });

  it('leaves short messages and values that are not errors alone', () => {
    const error = new Error('short');
    boundErrorText(error);
    boundErrorText('a string');
    boundErrorText(undefined);
    expect(error.message).toBe('short');
  });
});
