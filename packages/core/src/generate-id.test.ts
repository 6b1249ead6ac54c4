import { describe, expect, it } from 'vitest';
import { generateId } from './generate-id.ts';

describe('generateId', () => {
  it('starts with the prefix and has 24 alphanumeric characters after it by default', () => {
    const id = generateId('call_');
    expect(id.startsWith('call_')).toBe(true);
    expect(id.slice(5)).toMatch(/^[A-Za-z0-9]{24}$/);
  });

  it('honours a custom length and an empty prefix', () => {
    expect(generateId('', 8)).toMatch(/^[A-Za-z0-9]{8}$/);
  });

  it('does not repeat across many ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => generateId('id_')));
    expect(ids.size).toBe(1000);
  });

  it('stays unique and well-formed across refills of its random pool, and for ids longer than the pool', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => generateId('', 30)));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(generateId('x_', 5000)).toMatch(/^x_[A-Za-z0-9]{5000}$/);
  });
});
