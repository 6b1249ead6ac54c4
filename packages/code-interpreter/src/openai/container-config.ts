import { InvalidToolConfigError } from '@toolwire/core';
import { isMemoryLimit, MEMORY_LIMITS } from './memory-limit.ts';
import type { MemoryLimit } from './memory-limit.ts';

/**
 * Which container the code runs in: an existing container's id (`'cntr_…'`, created with
 * `containers.create`), or an auto container that OpenAI creates (or reuses from the
 * conversation) with the given memory tier and files.
 */
export type CodeInterpreterContainer = string | AutoContainerOptions;

/** Options of an auto container. */
export interface AutoContainerOptions {
  /** Memory tier, fixed for the container's life. OpenAI's default is `'1g'`. */
  memoryLimit?: MemoryLimit;
  /** Files (`file-…` ids from the Files API) copied into the container. */
  fileIds?: string[];
}

/** The `container` field of OpenAI's `code_interpreter` tool, as sent on the wire. */
export type WireContainer = string | { type: 'auto'; memory_limit?: MemoryLimit; file_ids?: string[] };

// Azure caps `tools[].container` at 64 characters; OpenAI ids are `cntr_` + 48 hex digits.
const MAX_ID_LENGTH = 64;
const AUTO_KEYS = new Set(['memoryLimit', 'fileIds']);

function isIdCharacter(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 45 || // -
    code === 95 // _
  );
}

/** True when `id` is non-empty, at most 64 characters, and only letters, digits, `-` and `_`. */
export function isWellFormedId(id: string): boolean {
  if (id.length === 0 || id.length > MAX_ID_LENGTH) return false;
  for (let i = 0; i < id.length; i++) {
    if (!isIdCharacter(id.charCodeAt(i))) return false;
  }
  return true;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/**
 * Checks a container id (`cntr_…`) and throws `InvalidToolConfigError` naming `toolName` if
 * it cannot be one.
 */
export function assertContainerId(id: unknown, toolName: string): asserts id is string {
  if (typeof id !== 'string' || !id.startsWith('cntr_') || id.length <= 5 || !isWellFormedId(id)) {
    throw new InvalidToolConfigError({
      toolName,
      problem:
        `container id ${describe(id)} is not a container id. Pass the \`id\` of a container created with ` +
        '`containers.create` (it looks like "cntr_68ec8761…", at most 64 characters), or `{ memoryLimit }` for an auto container.',
    });
  }
}

/** Throws `InvalidToolConfigError` unless `value` is one of the four memory tiers. */
export function assertMemoryLimit(value: unknown, toolName: string): asserts value is MemoryLimit {
  if (!isMemoryLimit(value)) {
    throw new InvalidToolConfigError({
      toolName,
      problem: `memoryLimit ${describe(value)} is not a memory tier. Use one of ${MEMORY_LIMITS.map((m) => `'${m}'`).join(', ')}.`,
    });
  }
}

/** Throws `InvalidToolConfigError` unless `value` is an array of distinct, well-formed file ids. */
export function assertFileIds(value: unknown, toolName: string): asserts value is string[] {
  if (!Array.isArray(value)) {
    throw new InvalidToolConfigError({ toolName, problem: `fileIds must be an array of file ids, got ${describe(value)}.` });
  }
  const seen = new Set<string>();
  for (const id of value as unknown[]) {
    if (typeof id !== 'string' || !isWellFormedId(id)) {
      throw new InvalidToolConfigError({
        toolName,
        problem: `fileIds contains ${describe(id)}, which is not a file id. Upload the file with the Files API (purpose "user_data" or "assistants") and pass its id, e.g. "file-abc123".`,
      });
    }
    if (seen.has(id)) {
      throw new InvalidToolConfigError({ toolName, problem: `fileIds lists "${id}" twice; list each file once.` });
    }
    seen.add(id);
  }
}

/**
 * Validates the `container` option and turns it into the wire form. Throws
 * `InvalidToolConfigError` for a bad id, tier or file id, before any request is made.
 *
 * @example toWireContainer({ memoryLimit: '4g' }, 'code_interpreter') // { type: 'auto', memory_limit: '4g' }
 */
export function toWireContainer(container: CodeInterpreterContainer | undefined, toolName: string): WireContainer {
  if (container === undefined) return { type: 'auto' };
  if (typeof container === 'string') {
    assertContainerId(container, toolName);
    return container;
  }
  if (typeof container !== 'object' || container === null || Array.isArray(container)) {
    throw new InvalidToolConfigError({
      toolName,
      problem: `container must be a container id ("cntr_…") or { memoryLimit?, fileIds? }, got ${describe(container)}.`,
    });
  }
  for (const key of Object.keys(container)) {
    if (!AUTO_KEYS.has(key)) {
      const hint =
        key === 'id'
          ? 'Pass an existing container as the id string itself: `container: "cntr_…"` (its memory tier was fixed when it was created).'
          : 'Known options are memoryLimit and fileIds (camelCase).';
      throw new InvalidToolConfigError({ toolName, problem: `container has an unknown option "${key}". ${hint}` });
    }
  }
  const wire: { type: 'auto'; memory_limit?: MemoryLimit; file_ids?: string[] } = { type: 'auto' };
  if (container.memoryLimit !== undefined) {
    assertMemoryLimit(container.memoryLimit, toolName);
    wire.memory_limit = container.memoryLimit;
  }
  if (container.fileIds !== undefined) {
    assertFileIds(container.fileIds, toolName);
    if (container.fileIds.length > 0) wire.file_ids = [...container.fileIds];
  }
  return wire;
}
