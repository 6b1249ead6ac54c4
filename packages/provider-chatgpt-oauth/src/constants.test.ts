import { describe, expect, it } from 'vitest';

import { CODEX_CLIENT_VERSION, resolveClientVersion } from './constants.ts';

describe('resolveClientVersion', () => {
  it('takes TOOLWIRE_CODEX_VERSION when it is a version number, else the bundled recent one', () => {
    expect(resolveClientVersion({ TOOLWIRE_CODEX_VERSION: '0.201.3' })).toBe('0.201.3');
    expect(resolveClientVersion({})).toBe(CODEX_CLIENT_VERSION);
    expect(resolveClientVersion({ TOOLWIRE_CODEX_VERSION: 'latest' })).toBe(CODEX_CLIENT_VERSION);
    expect(resolveClientVersion({ TOOLWIRE_CODEX_VERSION: '1.2' })).toBe(CODEX_CLIENT_VERSION);
  });
});
