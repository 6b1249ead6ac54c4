import { UnsupportedFeatureError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { imageToBytes } from './convert-image.ts';

const base64 = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64');

describe('imageToBytes', () => {
  it('decodes a base64 data URL and raw base64 to the same bytes', () => {
    const expected = Buffer.from(base64, 'base64');
    expect(Buffer.from(imageToBytes(`data:image/png;base64,${base64}`))).toEqual(expected);
    expect(Buffer.from(imageToBytes(base64))).toEqual(expected);
  });

  it('refuses URLs, which Ollama cannot fetch, with what to do instead', () => {
    expect(() => imageToBytes('https://example.com/cat.png')).toThrow('download the image and pass its bytes as base64');
  });

  it('refuses what is not padded base64, such as a file path', () => {
    let error: unknown;
    try {
      imageToBytes('/etc/passwd');
    } catch (caught) {
      error = caught;
    }
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect(() => imageToBytes('data:image/png,not-base64')).toThrow('base64 data URL');
    expect(() => imageToBytes('QUJD=RA==')).toThrow('neither a data URL nor base64');
  });

  it('returns bytes, so the Node client never reads a string image from disk', () => {
    // Four-character multiples pass the base64 check; they must still never become a path.
    expect(imageToBytes('/tmp')).toBeInstanceOf(Uint8Array);
  });
});
