import type { ProviderTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { defaultProviderToolResult, providerCallArguments, resolveProviderToolResult } from './provider-tool-output.ts';

const tool: ProviderTool = { type: 'provider', provider: 'openai', id: 'openai.web_search', name: 'web_search', config: {} };

describe('providerCallArguments', () => {
  it('gives { code, containerId } for the code interpreter', () => {
    expect(providerCallArguments({ id: 'ci_1', type: 'code_interpreter_call', code: 'print(1)', container_id: 'cntr_1', outputs: [] })).toEqual({
      code: 'print(1)',
      containerId: 'cntr_1',
    });
  });

  it('gives the other fields of other provider items', () => {
    expect(providerCallArguments({ id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'x' } })).toEqual({
      action: { type: 'search', query: 'x' },
    });
  });
});

describe('defaultProviderToolResult', () => {
  it('uses logs and image URLs as the message and the item as the value', () => {
    const item = { type: 'code_interpreter_call', outputs: [{ type: 'logs', logs: 'hello' }, { type: 'image', url: 'https://x/y.png' }] };
    expect(defaultProviderToolResult({ toolCallId: 'ci_1', tool, item })).toEqual({
      toolCallId: 'ci_1',
      name: 'web_search',
      success: true,
      message: 'hello\nimage: https://x/y.png',
      value: item,
      providerExecuted: true,
    });
  });

  it('falls back to the item as JSON', () => {
    expect(defaultProviderToolResult({ toolCallId: 'ws_1', tool, item: { type: 'web_search_call' } }).message).toBe('{"type":"web_search_call"}');
  });
});

describe('resolveProviderToolResult', () => {
  it('passes the raw item and the context to the handler', async () => {
    const item = { type: 'web_search_call', id: 'ws_1' };
    const result = await resolveProviderToolResult(
      {
        toolCallId: 'ws_1',
        item,
        tool: {
          ...tool,
          handleProviderOutput: (output, context) => ({
            toolCallId: context.toolCallId,
            name: context.toolName,
            success: true,
            message: `${context.provider}/${context.modelId}/${String(context.annotations?.length)}`,
            value: output,
          }),
        },
      },
      { modelId: 'gpt-5', annotations: [{ type: 'url_citation' }] },
    );
    expect(result).toEqual({ toolCallId: 'ws_1', name: 'web_search', success: true, message: 'openai/gpt-5/1', value: item, providerExecuted: true });
  });
});
