import { describe, expect, it } from 'vitest';
import { Finder } from './native-call.ts';

describe('Finder', () => {
  it('answers a repeated search from before its last hit without missing one', () => {
    const text = 'a<x> b<x> c<x>';
    const finder = new Finder(text, '<x>');
    expect(finder.next(0)).toBe(1);
    expect(finder.next(2)).toBe(6);
    expect(finder.next(12)).toBe(-1);
    // Searches that went back: the hits between are still found.
    expect(finder.next(7)).toBe(11);
    expect(finder.next(0)).toBe(1);
    expect(finder.next(5)).toBe(6);
  });

  it('does not find a token that runs past its end', () => {
    const finder = new Finder('ab<x>', '<x>', 4);
    expect(finder.next(0)).toBe(-1);
    expect(finder.next(0)).toBe(-1);
  });
});
