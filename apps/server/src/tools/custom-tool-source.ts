/**
 * Turns a custom tool file written as a module
 *
 * ```js
 * export const definition = { name: 'weather', description: '…', parameters: { type: 'object', … } };
 * export async function handler({ city }) { … }
 * ```
 *
 * into a plain script the sandbox can run: `export` keywords at the start of a line are
 * dropped (imports are not supported: handlers get `fetch` and nothing else). Returns the
 * script, or throws an `Error` saying what the file must look like.
 */
export function toSandboxScript(source: string): string {
  const lines = source.split('\n');
  const out: string[] = [];
  let hasDefinition = false;
  let hasHandler = false;
  for (const line of lines) {
    const trimmed = line.trimStart();
    if (trimmed.startsWith('import ') || trimmed.startsWith('import{')) {
      throw new Error('imports are not available in the sandbox; a tool file may only use plain JavaScript and fetch.');
    }
    if (trimmed.startsWith('export default')) {
      throw new Error("use named exports: 'export const definition = …' and 'export async function handler(args) { … }'.");
    }
    if (trimmed.startsWith('export ')) {
      const rest = trimmed.slice('export '.length);
      if (rest.startsWith('const definition') || rest.startsWith('let definition') || rest.startsWith('var definition')) hasDefinition = true;
      if (rest.startsWith('async function handler') || rest.startsWith('function handler') || rest.startsWith('const handler')) hasHandler = true;
      out.push(line.slice(0, line.length - trimmed.length) + rest);
    } else {
      out.push(line);
    }
  }
  if (!hasDefinition || !hasHandler) {
    throw new Error("a tool file exports 'definition' ({ name, description, parameters }) and 'handler' (a function of the arguments).");
  }
  return out.join('\n');
}
