import { createHash } from 'node:crypto';

const MAX_NAME_LENGTH = 64;

/**
 * The name a tool of an MCP server gets as a core tool: `prefix` + its MCP name, with
 * characters providers refuse replaced by `_`, and names past 64 characters shortened
 * with a hash of the whole so two long names stay apart.
 */
export function exposedToolName(mcpName: string, prefix: string): string {
  const full = prefix + mcpName;
  let name = '';
  for (let i = 0; i < full.length; i++) {
    const c = full.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
    name += ok ? full.charAt(i) : '_';
  }
  if (name === '') return 'tool';
  if (name.length <= MAX_NAME_LENGTH) return name;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME_LENGTH - 9)}_${hash}`;
}
