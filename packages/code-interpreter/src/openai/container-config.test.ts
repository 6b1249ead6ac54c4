import { InvalidToolConfigError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { toWireContainer } from './container-config.ts';

const tool = 'code_interpreter';

function problemOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(InvalidToolConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected InvalidToolConfigError');
}

describe('toWireContainer', () => {
  it('defaults to an auto container', () => {
    expect(toWireContainer(undefined, tool)).toEqual({ type: 'auto' });
    expect(toWireContainer({}, tool)).toEqual({ type: 'auto' });
  });

  it('sends a container id as the plain string OpenAI expects', () => {
    const id = 'cntr_6903bf2c0470819090b2b1e63e0b66800c139a5d654a42ec';
    expect(toWireContainer(id, tool)).toBe(id);
  });

  it('maps camelCase auto options to the snake_case wire fields', () => {
    expect(toWireContainer({ memoryLimit: '4g', fileIds: ['file-abc123', 'file-def456'] }, tool)).toEqual({
      type: 'auto',
      memory_limit: '4g',
      file_ids: ['file-abc123', 'file-def456'],
    });
  });

  it('accepts every documented memory tier', () => {
    for (const memoryLimit of ['1g', '4g', '16g', '64g'] as const) {
      expect(toWireContainer({ memoryLimit }, tool)).toEqual({ type: 'auto', memory_limit: memoryLimit });
    }
  });

  it('rejects an unknown memory tier and lists the valid ones', () => {
    const message = problemOf(() => toWireContainer({ memoryLimit: '8g' as never }, tool));
    expect(message).toContain('"8g"');
    expect(message).toContain("'1g', '4g', '16g', '64g'");
  });

  it('rejects ids that are not container ids', () => {
    for (const id of ['', 'cfile_123', 'cntr_', 'cntr_has space', `cntr_${'a'.repeat(60)}`]) {
      expect(problemOf(() => toWireContainer(id, tool))).toContain('is not a container id');
    }
  });

  it('rejects the { id, memory_limit } shape with a hint to pass the id string', () => {
    const message = problemOf(() => toWireContainer({ id: 'cntr_abc' } as never, tool));
    expect(message).toContain('unknown option "id"');
    expect(message).toContain('container: "cntr_…"');
  });

  it('rejects snake_case options with a hint', () => {
    expect(problemOf(() => toWireContainer({ memory_limit: '4g' } as never, tool))).toContain('camelCase');
  });

  it('rejects empty, malformed and duplicate file ids', () => {
    expect(problemOf(() => toWireContainer({ fileIds: [''] }, tool))).toContain('not a file id');
    expect(problemOf(() => toWireContainer({ fileIds: ['file abc'] }, tool))).toContain('not a file id');
    expect(problemOf(() => toWireContainer({ fileIds: [42 as never] }, tool))).toContain('not a file id');
    expect(problemOf(() => toWireContainer({ fileIds: 'file-abc' as never }, tool))).toContain('must be an array');
    expect(problemOf(() => toWireContainer({ fileIds: ['file-a', 'file-a'] }, tool))).toContain('twice');
  });

  it('rejects a container that is neither an id nor an options object', () => {
    expect(problemOf(() => toWireContainer(42 as never, tool))).toContain('must be a container id');
    expect(problemOf(() => toWireContainer(null as never, tool))).toContain('must be a container id');
  });
});
