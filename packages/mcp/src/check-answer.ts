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

/**
 * Whether `value` claims to answer request `id` (or any request, without `id`): an `id`, a
 * `result` or an `error`, and no `method` (a message with a method is a request or a
 * notification, whatever else it holds). Ids are matched as the SDK matches them, by
 * `Number(id)`: it resolves request 7 with an answer whose id is `"7"`.
 */
export function isAnswer(value: unknown, id?: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const answer = value as Record<string, unknown>;
  const claimed = answer.id;
  if (typeof claimed !== 'string' && typeof claimed !== 'number') return false;
  if (Object.hasOwn(answer, 'method')) return false;
  if (id !== undefined && Number(claimed) !== Number(id)) return false;
  return Object.hasOwn(answer, 'result') || Object.hasOwn(answer, 'error');
}
