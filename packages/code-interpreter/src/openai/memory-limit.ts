/** The memory tiers of an OpenAI container; fixed when the container is created (default `'1g'`). */
export type MemoryLimit = '1g' | '4g' | '16g' | '64g';

/** Every valid `MemoryLimit`, in increasing order. */
export const MEMORY_LIMITS: readonly MemoryLimit[] = ['1g', '4g', '16g', '64g'];

/** True when `value` is one of `MEMORY_LIMITS`. */
export function isMemoryLimit(value: unknown): value is MemoryLimit {
  return typeof value === 'string' && (MEMORY_LIMITS as readonly string[]).includes(value);
}
