// Mapping a recorded response's code interpreter calls to ToolResults (citations collected,
// a ~80 KB data-URL image kept), beside JSON.parse of the same response, in the same run.
import { readFileSync } from 'node:fs';
import { annotationsFromResponseOutput, codeInterpreterResult } from '@toolwire/code-interpreter';
import { compare } from '../../../bench/harness.ts';

const turns = JSON.parse(readFileSync(new URL('../src/__fixtures__/pydantic-ai-return-image.interactions.json', import.meta.url), 'utf8')) as {
  response: { output: Record<string, unknown>[] };
}[];
const response = turns[0]!.response;
const text = JSON.stringify(response);
const calls = response.output.filter((item) => item.type === 'code_interpreter_call');

await compare({
  title: 'code interpreter result mapping (pydantic-ai image response)',
  baseline: { name: 'JSON.parse of the response', fn: (): unknown => JSON.parse(text), bytes: text.length },
  cases: [
    {
      name: 'annotations + codeInterpreterResult per call',
      bytes: text.length,
      fn: () => {
        const annotations = annotationsFromResponseOutput(response.output);
        return calls.map((call) =>
          codeInterpreterResult(call, { toolCallId: String(call.id), toolName: 'code_interpreter', provider: 'openai', modelId: 'gpt-5', annotations }),
        );
      },
    },
  ],
});
