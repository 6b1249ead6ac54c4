import { InvalidToolConfigError, ProviderToolMismatchError } from '@toolwire/core';
import type { ProviderTool } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { mapResponsesToolChoice, prepareResponsesTools, toResponsesFunctionTool } from './responses-tools.ts';

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } } },
};

const codeInterpreter: ProviderTool = {
  type: 'provider',
  provider: 'openai',
  id: 'openai.code_interpreter',
  name: 'code_interpreter',
  config: { wireTool: { type: 'code_interpreter', container: { type: 'auto', memory_limit: '4g' } }, include: ['code_interpreter_call.outputs'] },
};

describe('prepareResponsesTools', () => {
  it('maps function tools to the flat form and puts wireTool in tools as is', () => {
    const prepared = prepareResponsesTools([weather, { ...weather, name: 'strict_one', strict: true }, codeInterpreter], undefined);
    expect(prepared.tools).toEqual([
      { type: 'function', name: 'get_weather', parameters: weather.inputSchema, strict: false },
      {
        type: 'function',
        name: 'strict_one',
        parameters: { type: 'object', properties: { city: { type: ['string', 'null'] } }, required: ['city'], additionalProperties: false },
        strict: true,
      },
      { type: 'code_interpreter', container: { type: 'auto', memory_limit: '4g' } },
    ]);
    expect(prepared.include).toEqual(['code_interpreter_call.outputs']);
    expect(prepared.providerTools[0]?.itemType).toBe('code_interpreter_call');
  });

  it('rejects a provider tool bound to another provider before any request', () => {
    expect(() => prepareResponsesTools([{ ...codeInterpreter, provider: 'ollama', name: 'ollama_search' }], undefined)).toThrow(ProviderToolMismatchError);
  });

  it('rejects an OpenAI provider tool without a wireTool', () => {
    expect(() => prepareResponsesTools([{ ...codeInterpreter, config: {} }], undefined)).toThrow(InvalidToolConfigError);
    expect(() => prepareResponsesTools([{ ...codeInterpreter, config: { wireTool: { type: 'x' }, include: 'y' } }], undefined)).toThrow(InvalidToolConfigError);
  });

  it('maps tool choice to the flat Responses forms, provider tools to the hosted form', () => {
    const { providerTools } = prepareResponsesTools([codeInterpreter], undefined);
    expect(mapResponsesToolChoice('required', providerTools)).toBe('required');
    expect(mapResponsesToolChoice({ type: 'tool', name: 'get_weather' }, providerTools)).toEqual({ type: 'function', name: 'get_weather' });
    expect(mapResponsesToolChoice({ type: 'tool', name: 'code_interpreter' }, providerTools)).toEqual({ type: 'code_interpreter' });
  });
});

describe('toResponsesFunctionTool', () => {
  it('converts a strict tool to the strict schema form, and can normalise schemas as Codex does', () => {
    const tool = toResponsesFunctionTool(
      { type: 'function', name: 'f', strict: true, inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] } },
      { normalizeSchemas: true },
    );
    expect(tool.strict).toBe(true);
    expect(tool.parameters).toMatchObject({ additionalProperties: false, required: ['a', 'b'], properties: { b: { type: ['number', 'null'] } } });
    const loose = toResponsesFunctionTool({ type: 'function', name: 'g', inputSchema: { properties: { list: { type: 'array' } } } }, { normalizeSchemas: true });
    expect(loose.parameters).toEqual({ type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } });
  });
});
