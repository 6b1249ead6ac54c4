import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTools } from '@toolwire/core';
import type { Message, ToolMessage } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCodeInterpreter } from '../src/index.ts';
import type { CodeInterpreterValue, LocalCodeInterpreter } from '../src/index.ts';

let root: string;
let python: LocalCodeInterpreter;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolwire-ci-run-tools-'));
  // Searchable by the uid the sandbox may run code as (65534 as root without a writable pids cgroup).
  await chmod(root, 0o755);
  python = localCodeInterpreter({ language: 'python', root });
});
afterAll(async () => {
  await python.dispose();
  await rm(root, { recursive: true, force: true });
});

function toolMessages(messages: readonly Message[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.role === 'tool');
}

describe('the local interpreter inside runTools', () => {
  it('runs the scripted model’s code, feeds the result back, and keeps files for the conversation', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'call_1', name: 'run_python', arguments: { code: 'open("dice.txt", "w").write("7\\n")\nprint("saved")' } }] },
      { toolCalls: [{ id: 'call_2', name: 'run_python', arguments: { code: 'open("dice.txt").read().strip()' } }] },
      { text: 'The file holds 7.' },
    ]);
    const result = await runTools({ model, messages: [{ role: 'user', content: 'Save a roll, then read it.' }], tools: [python] });

    expect(result.stoppedBy).toBe('answer');
    expect(result.text).toBe('The file holds 7.');
    const [first, second] = toolMessages(result.messages);
    expect(first?.result?.success).toBe(true);
    const firstValue = first?.result?.value as CodeInterpreterValue;
    expect(firstValue.stdout).toBe('saved\n');
    expect(firstValue.files.map((f) => f.filename)).toEqual(['dice.txt']);
    const secondValue = second?.result?.value as CodeInterpreterValue;
    expect(secondValue.stdout).toBe("'7'\n");
    expect(secondValue.containerId).toBe(firstValue.containerId);
    // The model read the result as its tool message.
    expect(model.requests[2]?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_2' });
    expect((model.requests[2]?.messages.at(-1) as ToolMessage).content).toContain("'7'");
    // The tool was offered as an ordinary function tool.
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(['run_python']);
  });

  it('sends a Python exception back to the model as a failed result with the traceback', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'call_1', name: 'run_python', arguments: { code: '1 / 0' } }] },
      { text: 'Division by zero; fixed.' },
    ]);
    const result = await runTools({ model, messages: [{ role: 'user', content: 'Divide.' }], tools: [python] });
    const [message] = toolMessages(result.messages);
    expect(message?.result?.success).toBe(false);
    expect(message?.result?.error?.type).toBe('execution_error');
    expect(message?.content).toContain('ZeroDivisionError: division by zero');
    // The failed result keeps the run's value, like `run` does.
    const value = message?.result?.value as CodeInterpreterValue;
    expect(value.exitCode).toBe(1);
    expect(value.stderr).toContain('Traceback');
  });

  it('gives the model stdout as plain text, not the value as JSON', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'run_python', arguments: { code: 'print(6 * 7)' } }] }, { text: '42' }]);
    const result = await runTools({ model, messages: [{ role: 'user', content: 'multiply' }], tools: [python] });
    const [message] = toolMessages(result.messages);
    expect(message?.content).toBe('42\n');
    expect((message?.result?.value as CodeInterpreterValue).stdout).toBe('42\n');
  });

  it('gives separate conversations separate work dirs', async () => {
    const script = () =>
      createScriptedModel([{ toolCalls: [{ name: 'run_python', arguments: { code: 'import os\nos.getcwd()' } }] }, { text: 'ok' }]);
    const a = await runTools({ model: script(), messages: [{ role: 'user', content: 'a' }], tools: [python] });
    const b = await runTools({ model: script(), messages: [{ role: 'user', content: 'b' }], tools: [python] });
    const idOf = (r: typeof a) => (toolMessages(r.messages)[0]?.result?.value as CodeInterpreterValue | undefined)?.stdout;
    expect(idOf(a)).toBeDefined();
    expect(idOf(a)).not.toBe(idOf(b));
  });

  it('keeps base64 images out of what the model reads, listing the image file instead', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const code = `import base64\nopen("plot.png", "wb").write(base64.b64decode("${png}"))\nprint("plotted")`;
    const model = createScriptedModel([{ toolCalls: [{ name: 'run_python', arguments: { code } }] }, { text: 'done' }]);
    const result = await runTools({ model, messages: [{ role: 'user', content: 'plot' }], tools: [python] });
    const [message] = toolMessages(result.messages);
    const value = message?.result?.value as CodeInterpreterValue;
    expect(value.outputs.map((o) => o.type)).toEqual(['logs', 'image']);
    expect(value.files.map((f) => f.filename)).toEqual(['plot.png']);
    expect(message?.content).not.toContain('base64');
    expect(message?.content).toContain('plot.png');
  });
});
