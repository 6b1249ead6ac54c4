import { executeToolCall, ToolRegistry } from '@toolwire/core';
import { afterAll, describe, expect, it } from 'vitest';
import { localCodeInterpreter } from '../src/index.ts';
import type { CodeInterpreterEvent, LocalCodeInterpreter } from '../src/index.ts';

const interpreters: LocalCodeInterpreter[] = [];
afterAll(async () => {
  await Promise.all(interpreters.map((i) => i.dispose()));
});

/** Waits (bounded) for the interpreter to report that a run ended. */
async function runEnded(events: CodeInterpreterEvent[]): Promise<CodeInterpreterEvent | undefined> {
  for (let i = 0; i < 500 && !events.some((e) => e.type === 'local-run'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return events.find((e) => e.type === 'local-run');
}

describe('localCodeInterpreter when its caller aborts', () => {
  it.each([
    ['python', 'import time\ntime.sleep(60)'],
    ['javascript', 'for (;;) {}'],
  ] as const)('stops %s code at once instead of running it to its timeout', async (language, code) => {
    const events: CodeInterpreterEvent[] = [];
    const interpreter = localCodeInterpreter({ language, timeoutMs: 60_000, onEvent: (e) => events.push(e) });
    interpreters.push(interpreter);
    const registry = new ToolRegistry({ tools: [interpreter] });
    const controller = new AbortController();
    const call = executeToolCall({ id: 'c1', name: interpreter.name, arguments: { code } }, { registry, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client went away')), 300);
    await expect(call).rejects.toThrow('client went away');
    // The code stopped: the run reports its end long before the 60 s timeout.
    expect(await runEnded(events)).toMatchObject({ type: 'local-run', success: false, timedOut: false });
  });

  it('starts nothing for a signal aborted before the run', async () => {
    const python = localCodeInterpreter({ language: 'python' });
    interpreters.push(python);
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(python.run('open("never.txt", "w")', { signal: controller.signal })).rejects.toThrow('gone');
  });
});
