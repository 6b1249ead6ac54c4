import type { ProviderToolContext, ToolResult } from '@toolwire/core';
import type { CodeInterpreterValue } from '../code-interpreter-value.ts';
import { readCodeInterpreterCall } from './code-interpreter-call.ts';
import { containerFilesFromAnnotations } from './container-file-citations.ts';

function logsOf(value: CodeInterpreterValue): string {
  const parts: string[] = [];
  for (const output of value.outputs) {
    if (output.type === 'logs') parts.push(output.logs);
  }
  return parts.join('\n');
}

function messageOf(value: CodeInterpreterValue): string {
  const images = value.outputs.filter((o) => o.type === 'image').length;
  const lines: string[] = [];
  if (value.stdout !== '') lines.push(value.stdout);
  if (images > 0) lines.push(images === 1 ? '[1 image]' : `[${images} images]`);
  // OpenAI reports a Python exception as a completed call with no output, so say so rather
  // than implying the code worked.
  if (lines.length === 0) lines.push('(no output; OpenAI does not report Python errors, so the code may have failed)');
  if (value.files.length > 0) lines.push(`[files: ${value.files.map((f) => f.filename).join(', ')}]`);
  return lines.join('\n');
}

/**
 * The default `handleProviderOutput` of `openAICodeInterpreter`: turns a
 * `code_interpreter_call` item into a `ToolResult` whose `message` is the logs and whose
 * `value` is a `CodeInterpreterValue` (code, container id, logs and images, and the files
 * cited in the same response's text for that container).
 */
export function codeInterpreterResult(output: unknown, context: ProviderToolContext): ToolResult {
  const item = readCodeInterpreterCall(output);
  if (item === undefined) {
    return {
      toolCallId: context.toolCallId,
      name: context.toolName,
      success: false,
      message: 'The provider returned something other than a code_interpreter_call item.',
      error: { type: 'execution_error', message: 'Unexpected code interpreter output.' },
      providerExecuted: true,
    };
  }
  const outputs = item.outputs ?? [];
  const value: CodeInterpreterValue = {
    code: item.code ?? '',
    containerId: item.container_id,
    outputs,
    files: containerFilesFromAnnotations(context.annotations ?? [], item.container_id === '' ? undefined : item.container_id),
    stdout: '',
    stderr: '',
    status: item.status,
  };
  value.stdout = logsOf(value);
  const success = item.status === 'completed';
  const result: ToolResult = {
    toolCallId: context.toolCallId,
    name: context.toolName,
    success,
    message: messageOf(value),
    value,
    providerExecuted: true,
  };
  if (!success) {
    result.error = { type: 'execution_error', message: `The code interpreter call ended with status "${item.status}".` };
  }
  return result;
}
