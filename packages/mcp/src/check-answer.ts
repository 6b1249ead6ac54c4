import { JSONRPCErrorResponseSchema, JSONRPCResultResponseSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from './describe-error.ts';

/**
 * What is wrong with a parsed message that answers a request (it has an `id` and a `result`
 * or an `error`), checked as the answer it claims to be; undefined when it is a valid answer.
 */
export function answerProblem(message: Record<string, unknown>): string | undefined {
  const schema = Object.hasOwn(message, 'error') ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema;
  const checked = schema.safeParse(message);
  return checked.success ? undefined : `its answer is not a valid JSON-RPC response: ${describeError(checked.error)}`;
}

/** Whether `value` claims to answer request `id` (or any request, without `id`). */
export function isAnswer(value: unknown, id?: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const answer = value as Record<string, unknown>;
  const claimed = answer.id;
  if (typeof claimed !== 'string' && typeof claimed !== 'number') return false;
  if (id !== undefined && claimed !== id) return false;
  return Object.hasOwn(answer, 'result') || Object.hasOwn(answer, 'error');
}
