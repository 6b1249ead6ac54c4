// Against a real Ollama: runs when OLLAMA_HOST (or the default port) answers, and is
// skipped with a printed reason otherwise. OLLAMA_MODEL picks the model (default: the
// smallest installed chat model).
import { collectStream } from '@toolwire/core';
import type { FunctionToolSpec } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createOllama, DEFAULT_OLLAMA_HOST } from '../src/index.ts';

const host = process.env['OLLAMA_HOST'] ?? DEFAULT_OLLAMA_HOST;
const ollama = createOllama({ host });

async function probe(): Promise<string | undefined> {
  try {
    const models = await ollama.listModels();
    const chat = models.filter((m) => m.capabilities.includes('completion')).sort((a, b) => (a.size ?? 0) - (b.size ?? 0));
    const wanted = process.env['OLLAMA_MODEL'] ?? chat[0]?.name;
    if (wanted === undefined) {
      console.log(`[provider-ollama live] skipped: Ollama at ${ollama.host} has no chat model; run \`ollama pull qwen3:0.6b\`.`);
      return undefined;
    }
    return wanted;
  } catch (error) {
    console.log(`[provider-ollama live] skipped: no Ollama answers at ${ollama.host} (${(error as Error).message}). Set OLLAMA_HOST to run the live tests.`);
    return undefined;
  }
}

const modelId = await probe();

const weather: FunctionToolSpec = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
};

describe.skipIf(modelId === undefined)(`live Ollama (${modelId ?? 'none'})`, () => {
  it('lists models marked native or text tools', async () => {
    const models = await ollama.listModels();
    expect(models.length).toBeGreaterThan(0);
    expect(models.every((m) => typeof m.nativeTools === 'boolean')).toBe(true);
  });

  it('streams a plain answer to its finish', { timeout: 120_000 }, async () => {
    const response = await collectStream(
      ollama.chat(modelId!, { think: false }).stream({ messages: [{ role: 'user', content: 'Say hello in one word.' }], maxOutputTokens: 32 }),
    );
    expect(['stop', 'length']).toContain(response.finishReason);
  });

  it("calls a tool under toolChoice 'required', or says why not", { timeout: 180_000 }, async () => {
    const response = await ollama.chat(modelId!).generate({
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [weather],
      toolChoice: 'required',
      maxOutputTokens: 256,
    });
    if (response.toolCalls.length === 0) expect(response.warnings.length).toBeGreaterThan(0);
    else expect(response.toolCalls[0]?.name).toBe('get_weather');
  });
});
