import { createHash } from 'node:crypto';

/** SHA-256 (hex) of a value's JSON with object keys sorted, so equal arguments hash equally. */
export function hashArguments(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value) ?? 'undefined').digest('hex');
}

function canonicalJson(value: unknown): string | undefined {
  try {
    return stringifySorted(value);
  } catch {
    // Cyclic or otherwise unserializable: hashed as one marker, never a thrown error.
    return '[unserializable]';
  }
}

function stringifySorted(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}
