import type { CodeInterpreterOutput } from '../code-interpreter-value.ts';

/**
 * A Responses `code_interpreter_call` output item, as far as Toolwire reads it. `code` and
 * `outputs` may be `null` (outputs are only sent when `include` asks for them).
 */
export interface CodeInterpreterCallItem {
  type: 'code_interpreter_call';
  id: string;
  status: string;
  code: string | null;
  container_id: string;
  outputs: CodeInterpreterOutput[] | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readOutputs(value: unknown): CodeInterpreterOutput[] | null {
  if (!Array.isArray(value)) return null;
  const outputs: CodeInterpreterOutput[] = [];
  for (const entry of value as unknown[]) {
    if (!isRecord(entry)) continue;
    // Unknown output types (future ones) are skipped rather than failing the whole call.
    if (entry.type === 'logs' && typeof entry.logs === 'string') outputs.push({ type: 'logs', logs: entry.logs });
    else if (entry.type === 'image' && typeof entry.url === 'string') outputs.push({ type: 'image', url: entry.url });
  }
  return outputs;
}

/**
 * Reads a `code_interpreter_call` item from untrusted provider output, or returns
 * `undefined` when `value` is not one. Unknown keys are ignored.
 */
export function readCodeInterpreterCall(value: unknown): CodeInterpreterCallItem | undefined {
  if (!isRecord(value) || value.type !== 'code_interpreter_call') return undefined;
  return {
    type: 'code_interpreter_call',
    id: typeof value.id === 'string' ? value.id : '',
    status: typeof value.status === 'string' ? value.status : 'completed',
    code: typeof value.code === 'string' ? value.code : null,
    container_id: typeof value.container_id === 'string' ? value.container_id : '',
    outputs: readOutputs(value.outputs),
  };
}
