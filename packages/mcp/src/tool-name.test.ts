import { describe, expect, it } from 'vitest';
import { exposedToolName } from './tool-name.ts';

describe('exposedToolName', () => {
  it('keeps valid names and adds the prefix', () => {
    expect(exposedToolName('get_weather', '')).toBe('get_weather');
    expect(exposedToolName('read-file.v2', 'fs_')).toBe('fs_read-file.v2');
  });

  it('replaces characters providers refuse', () => {
    expect(exposedToolName('files/read file', '')).toBe('files_read_file');
    expect(exposedToolName('', '')).toBe('tool');
  });

  it('shortens long names to 64 characters, keeping two long names apart', () => {
    const a = exposedToolName(`${'x'.repeat(70)}_a`, '');
    const b = exposedToolName(`${'x'.repeat(70)}_b`, '');
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
  });
});
