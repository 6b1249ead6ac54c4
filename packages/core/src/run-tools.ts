import { raceAbort } from './abort.ts';
import { AnswerLimit } from './answer-limit.ts';
import { resolveRunAnswerLimits, RUN_TOOLS_ANSWER_SETTINGS } from './run-tools-loop.ts';
import { runToolLoop } from './run-tools-loop.ts';
import type { RunToolsOptions, RunToolsResult } from './run-tools-types.ts';

/**
 * The tool loop: calls the model, runs the tool calls it makes (concurrently unless
 * `parallelToolCalls: false`), appends the assistant turn and one `tool` message per call,
 * and repeats. It stops when the model answers without calls (`stoppedBy: 'answer'`),
 * when it calls a tool without `execute` (`'client-tool-calls'`, with `pendingToolCalls`;
 * the turn's other calls still run), or after `maxSteps` model calls (`'max-steps'`, not a
 * final answer). Failed tools are fed back to the model as results, never thrown.
 * Aborting `signal` rejects with its reason.
 *
 * A forcing `toolChoice` (`'required'`, `{ type: 'tool' }`) applies to the first step only;
 * later steps use `'auto'` so the model can answer with the results.
 *
 * @example
 * const { text, messages } = await runTools({
 *   model,
 *   messages: [{ role: 'user', content: 'Weather in Paris?' }],
 *   tools: [getWeather],
 * });
 */
export function runTools(options: RunToolsOptions): Promise<RunToolsResult> {
  const { model, signal } = options;
  return runToolLoop({
    options,
    signal,
    callModel: (request) =>
      raceAbort(model.generate(request), signal).then((response) => {
        // A whole answer is held by then: this bounds what the run keeps and acts on. (The
        // options were checked when the run started.)
        const limits = resolveRunAnswerLimits(options);
        if (limits.maxChars > 0 || limits.maxToolCalls > 0) new AnswerLimit({ ...limits, settings: RUN_TOOLS_ANSWER_SETTINGS }).addResponse(response);
        return response;
      }),
  });
}
