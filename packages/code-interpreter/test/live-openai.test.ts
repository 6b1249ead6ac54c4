// Live checks against the real OpenAI API; they need OPENAI_API_KEY and skip without it.
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { createOpenAI } from '@toolwire/provider-openai';
import { describe, expect, it } from 'vitest';
import { createContainerClient, openAICodeInterpreter } from '../src/index.ts';
import type { CodeInterpreterValue } from '../src/index.ts';

const apiKey = process.env.OPENAI_API_KEY;
if (apiKey === undefined || apiKey === '') {
  console.log('live-openai.test.ts: skipped, OPENAI_API_KEY is not set (these tests call the real OpenAI API).');
}
const modelId = process.env.OPENAI_LIVE_MODEL ?? 'gpt-5-mini';

describe.skipIf(apiKey === undefined || apiKey === '')('live OpenAI code interpreter', () => {
  it('runs code with a structured-output text.format beside the tool', { timeout: 120_000 }, async () => {
    const response = await createOpenAI({ apiKey })
      .responses(modelId)
      .generate({
        messages: [{ role: 'user', content: 'Use Python to compute the sum of the squares of 1..100. Answer with JSON.' }],
        tools: [openAICodeInterpreter()],
        toolChoice: 'required',
        responseFormat: {
          type: 'json',
          name: 'answer',
          schema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false },
        },
      });
    expect(response.toolResults.length).toBeGreaterThan(0);
    expect(JSON.parse(response.text)).toEqual({ total: 338_350 });
  });

  it('creates a container, uploads, lists and downloads a file, and deletes it', { timeout: 120_000 }, async () => {
    const containers = createContainerClient({ client: new OpenAI({ apiKey }) });
    const { id } = await containers.create({ name: 'toolwire-live-test', memoryLimit: '1g', expiresAfterMinutes: 1 });
    const to = join(tmpdir(), `toolwire-live-${id}.csv`);
    try {
      const uploaded = await containers.upload(id, { data: new TextEncoder().encode('a,b\n1,2\n'), filename: 'live.csv' });
      expect((await containers.listFiles(id)).map((f) => f.id)).toContain(uploaded.id);
      await containers.download(id, uploaded.id, { to });
      expect(await readFile(to, 'utf8')).toBe('a,b\n1,2\n');
      const response = await createOpenAI({ apiKey })
        .responses(modelId)
        .generate({ messages: [{ role: 'user', content: 'Print the contents of /mnt/data/live.csv.' }], tools: [openAICodeInterpreter({ container: id })], toolChoice: 'required' });
      expect((response.toolResults[0]?.value as CodeInterpreterValue | undefined)?.containerId).toBe(id);
    } finally {
      await rm(to, { force: true });
      await containers.delete(id);
    }
  });
});
