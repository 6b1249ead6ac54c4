import { ToolwireError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { FetchDeniedError, SandboxUnavailableError } from './errors.ts';

describe('sandbox errors', () => {
  it('SandboxUnavailableError says how to install bubblewrap and how to opt out knowingly', () => {
    const error = new SandboxUnavailableError({ missing: 'bubblewrap', detail: 'the `bwrap` binary was not found' });
    expect(error.name).toBe('SandboxUnavailableError');
    expect(error.message).toContain('apt-get install bubblewrap');
    expect(error.message).toContain("isolation: 'none'");
    expect(SandboxUnavailableError.isInstance(error)).toBe(true);
    expect(ToolwireError.isInstance(error)).toBe(true);
    expect(FetchDeniedError.isInstance(error)).toBe(false);
  });
});
