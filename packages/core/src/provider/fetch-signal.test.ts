import { describe, expect, it } from 'vitest';
import { FETCH_SIGNAL, fetchSignalOf, markFetchSignal, readsFetchSignal } from './fetch-signal.ts';

describe('FETCH_SIGNAL', () => {
  it('marks a fetch and tells a marked fetch from any other', () => {
    const plain: typeof globalThis.fetch = () => Promise.resolve(new Response(''));
    expect(readsFetchSignal(plain)).toBe(false);
    expect(readsFetchSignal(undefined)).toBe(false);
    expect(readsFetchSignal(Object.assign(() => Promise.resolve(new Response('')), { [FETCH_SIGNAL]: 'yes' }))).toBe(false);
    const marked = markFetchSignal(plain);
    expect(marked).toBe(plain);
    expect(readsFetchSignal(marked)).toBe(true);
  });

  it('reads the signal of init[FETCH_SIGNAL], and refuses a value that is not one', () => {
    const controller = new AbortController();
    expect(fetchSignalOf({ [FETCH_SIGNAL]: controller.signal } as RequestInit)).toBe(controller.signal);
    expect(fetchSignalOf(undefined)).toBeUndefined();
    expect(fetchSignalOf({ signal: controller.signal })).toBeUndefined();
    expect(() => fetchSignalOf({ [FETCH_SIGNAL]: { aborted: false } } as RequestInit)).toThrow(TypeError);
    expect(() => fetchSignalOf({ [FETCH_SIGNAL]: true } as RequestInit)).toThrow('must be an AbortSignal, got boolean');
  });
});
