const MAX_NAME_LENGTH = 64;

/**
 * A tool name from an operation: its `operationId`, or `method_path_segments` without
 * one, with characters providers refuse replaced by `_` and cut to 64 characters.
 */
export function operationToolName(operation: { operationId?: string; method: string; path: string }, prefix: string): string {
  const base =
    operation.operationId !== undefined && operation.operationId !== ''
      ? operation.operationId
      : [operation.method.toLowerCase(), ...operation.path.split('/').filter((part) => part !== '')].join('_');
  let name = '';
  for (const char of prefix + base) {
    const c = char.charCodeAt(0);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
    if (ok) name += char;
    // `{petId}` and other punctuation become one `_`, never a run of them.
    else if (!name.endsWith('_')) name += '_';
  }
  if (name.endsWith('_') && name.length > 1) name = name.slice(0, -1);
  return (name === '' ? 'operation' : name).slice(0, MAX_NAME_LENGTH);
}
