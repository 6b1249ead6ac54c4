import { InvalidToolConfigError, isProviderTool, partitionTools } from '@toolwire/core';
import type { ProviderToolContext, ToolResult } from '@toolwire/core';
import { ProviderToolMismatchError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import type { CodeInterpreterEvent } from '../events.ts';
import { openAICodeInterpreter } from './openai-code-interpreter.ts';

const item = {
  type: 'code_interpreter_call',
  id: 'ci_1',
  status: 'completed',
  code: 'print(1+1)',
  container_id: 'cntr_abc123',
  outputs: [{ type: 'logs', logs: '2\n' }],
};
const context: ProviderToolContext = { toolCallId: 'ci_1', toolName: 'code_interpreter', provider: 'openai', modelId: 'gpt-5', annotations: [] };

describe('openAICodeInterpreter', () => {
  it('is a ProviderTool bound to openai with the wire tool and the outputs include', () => {
    const tool = openAICodeInterpreter();
    expect(isProviderTool(tool)).toBe(true);
    expect(tool).toMatchObject({ type: 'provider', provider: 'openai', id: 'openai.code_interpreter', name: 'code_interpreter' });
    expect(tool.config).toEqual({
      wireTool: { type: 'code_interpreter', container: { type: 'auto' } },
      include: ['code_interpreter_call.outputs'],
    });
  });

  it('omits the include when outputs are not wanted', () => {
    expect(openAICodeInterpreter({ includeOutputs: false }).config.include).toEqual([]);
  });

  it('puts an existing container id and an auto container with tier and files on the wire', () => {
    expect(openAICodeInterpreter({ container: 'cntr_abc123' }).config.wireTool).toEqual({ type: 'code_interpreter', container: 'cntr_abc123' });
    expect(openAICodeInterpreter({ container: { memoryLimit: '16g', fileIds: ['file-1'] } }).config.wireTool.container).toEqual({
      type: 'auto',
      memory_limit: '16g',
      file_ids: ['file-1'],
    });
  });

  it('throws InvalidToolConfigError for a bad tier, id or option before any request', () => {
    expect(() => openAICodeInterpreter({ container: { memoryLimit: '2g' as never } })).toThrow(InvalidToolConfigError);
    expect(() => openAICodeInterpreter({ container: 'container-1' })).toThrow(InvalidToolConfigError);
    expect(() => openAICodeInterpreter({ includeOutputs: 'yes' as never })).toThrow(InvalidToolConfigError);
    expect(() => openAICodeInterpreter({ handleProviderOutput: 'x' as never })).toThrow(InvalidToolConfigError);
  });

  it('is rejected by any provider other than openai', () => {
    expect(() => partitionTools([openAICodeInterpreter()], 'ollama')).toThrow(ProviderToolMismatchError);
    expect(partitionTools([openAICodeInterpreter()], 'openai').providerTools).toHaveLength(1);
  });

  it('maps output with the default handler when none is given', async () => {
    const result = await openAICodeInterpreter().handleProviderOutput!(item, context);
    expect(result).toMatchObject({ toolCallId: 'ci_1', success: true, message: '2\n', providerExecuted: true });
  });

  it('runs the user handler first, with the same output and context, and uses its result', async () => {
    const seen: unknown[] = [];
    const custom: ToolResult = { toolCallId: 'ci_1', name: 'code_interpreter', success: true, message: 'custom' };
    const tool = openAICodeInterpreter({
      handleProviderOutput: (output, ctx) => {
        seen.push(output, ctx);
        return custom;
      },
    });
    expect(await tool.handleProviderOutput!(item, context)).toBe(custom);
    expect(seen[0]).toBe(item);
    expect(seen[1]).toBe(context);
  });

  it('falls back to the default mapping when the user handler returns undefined', async () => {
    let called = false;
    const tool = openAICodeInterpreter({
      handleProviderOutput: async () => {
        called = true;
        return undefined;
      },
    });
    const result = await tool.handleProviderOutput!(item, context);
    expect(called).toBe(true);
    expect(result.message).toBe('2\n');
  });

  it('reports the container id and memory tier of each call', async () => {
    const events: CodeInterpreterEvent[] = [];
    await openAICodeInterpreter({ container: { memoryLimit: '4g' }, onEvent: (e) => events.push(e) }).handleProviderOutput!(item, context);
    await openAICodeInterpreter({ container: 'cntr_abc123', onEvent: (e) => events.push(e) }).handleProviderOutput!(item, context);
    await openAICodeInterpreter({ onEvent: (e) => events.push(e) }).handleProviderOutput!(item, context);
    expect(events).toEqual([
      { type: 'container-used', containerId: 'cntr_abc123', memoryLimit: '4g', toolCallId: 'ci_1' },
      { type: 'container-used', containerId: 'cntr_abc123', memoryLimit: undefined, toolCallId: 'ci_1' },
      { type: 'container-used', containerId: 'cntr_abc123', memoryLimit: '1g', toolCallId: 'ci_1' },
    ]);
  });

  it('does not let a throwing event hook break the result', async () => {
    const tool = openAICodeInterpreter({
      onEvent: () => {
        throw new Error('logger down');
      },
    });
    expect((await tool.handleProviderOutput!(item, context)).success).toBe(true);
  });
});
