import { describe, expect, it } from 'vitest';
import { convertXmlValue } from './xml-value.ts';

describe('convertXmlValue', () => {
  it('keeps text without a schema', () => {
    expect(convertXmlValue('42', undefined)).toBe('42');
  });

  it('reads strict JSON of the other type where a string or another type is allowed', () => {
    expect(convertXmlValue('7', { type: ['string', 'integer'] })).toBe(7);
    expect(convertXmlValue('{"a": 1}', { type: ['string', 'object'] })).toEqual({ a: 1 });
    expect(convertXmlValue('[1, 2]', { anyOf: [{ type: 'string' }, { type: 'array' }] })).toEqual([1, 2]);
  });

  it('keeps text that is no JSON of an allowed non-string type', () => {
    expect(convertXmlValue('1abc', { type: ['string', 'integer'] })).toBe('1abc');
    expect(convertXmlValue('{not valid json', { type: ['string', 'object'] })).toBe('{not valid json');
    expect(convertXmlValue('1.5', { type: ['string', 'integer'] })).toBe('1.5');
    expect(convertXmlValue('true', { type: ['string', 'integer'] })).toBe('true');
  });

  it('keeps a number that would lose digits as text where a string is allowed (long ids)', () => {
    expect(convertXmlValue('12345678901234567890', { type: ['string', 'integer'] })).toBe('12345678901234567890');
    expect(convertXmlValue('0.1000000000000000055511151231257827', { type: ['string', 'number'] })).toBe('0.1000000000000000055511151231257827');
    expect(convertXmlValue('9007199254740991', { type: ['string', 'integer'] })).toBe(9007199254740991);
    expect(convertXmlValue('2.5', { type: ['string', 'number'] })).toBe(2.5);
  });

  it('keeps numbers as text where only a string (or null) is allowed', () => {
    expect(convertXmlValue('42', { anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('42');
    expect(convertXmlValue('42', { type: 'string' })).toBe('42');
    expect(convertXmlValue('null', { type: ['string', 'null'] })).toBeNull();
  });
});
