import { createScriptedModel } from '@toolwire/core/testing';
import type { ScriptedModel } from '@toolwire/core/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

// Model-written `calculate` expressions whose cost explodes: the gateway's event loop
// (every tenant's) must keep answering while they run, and each must stop at its deadline.
const models = new Map<string, ScriptedModel>();
let server: ToolwireServer;
let origin: string;
let openai: OpenAI;

beforeAll(async () => {
  const started = await startGateway((id) => {
    const model = models.get(id);
    if (model === undefined) throw new Error(`no model ${id}`);
    return model;
  });
  server = started.server;
  origin = started.origin;
  openai = new OpenAI({ apiKey: 'unused', baseURL: started.baseURL, maxRetries: 0 });
});
afterAll(() => server.close());

/** Polls /healthz every 10 ms until `until` settles; returns each answer's time in ms, sorted. */
async function healthzTimes(until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  const times: number[] = [];
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${origin}/healthz`);
    expect(res.status).toBe(200);
    await res.text();
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return times.sort((a, b) => a - b);
}

/**
 * /healthz answered within 100 ms throughout. The host these tests share is loaded far past
 * its cores (an idle gateway alone sees rare scheduling stalls over 100 ms), so one answer in
 * ten may be slower, but none by more than the OS's own stalls: a blocked event loop would
 * hold every answer for the whole evaluation (the 2 s limit).
 */
function expectResponsive(times: number[]): void {
  expect(times.length).toBeGreaterThan(5);
  expect(times[Math.floor(times.length * 0.9)]).toBeLessThan(100);
  // Under the 2 s a stopped evaluation takes: a blocked loop would hold an answer that long,
  // while an OS stall on a loaded 2-core machine has reached 1.2 s (a full-suite run).
  expect(times.at(-1)).toBeLessThan(1_900);
}

const cases: [string, RegExp][] = [
  ['fraction(2,3)^(3000*1000)', /took longer than 2000 ms and was stopped|more memory than the calculator allows/],
  ['nthRoots(1, 10^7)', /took longer than 2000 ms and was stopped|more memory than the calculator allows/],
  ['stirlingS2(3000*10, 1500*10)', /took longer than 2000 ms and was stopped|more memory than the calculator allows/],
  ['bellNumbers(100000)', /larger than 10000/],
];

describe('calculate on the gateway', () => {
  it('warms up the calculator', async () => {
    models.set('warm', createScriptedModel([{ toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] }, { text: 'done' }]));
    await openai.chat.completions.create({ model: 'test/warm', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'calculate' } }] });
    expect(models.get('warm')?.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('"result":"42"') as unknown });
  });

  cases.forEach(([expression, error], i) => {
    it(`keeps /healthz under 100 ms while ${expression} runs, and the call answers with an error`, async () => {
      const model = createScriptedModel([{ toolCalls: [{ name: 'calculate', arguments: { expression } }] }, { text: 'done' }]);
      models.set(`case${i}`, model);
      const call = openai.chat.completions.create({
        model: `test/case${i}`,
        messages: [{ role: 'user', content: 'compute' }],
        tools: [{ type: 'function', function: { name: 'calculate' } }],
      });
      const times = await healthzTimes(call);
      const completion = await call;
      expect(completion.choices[0]?.message.content).toBe('done');
      const toolMessage = model.requests[1]?.messages.at(-1);
      expect(toolMessage?.role).toBe('tool');
      expect(JSON.stringify(toolMessage)).toMatch(error);
      expectResponsive(times);
    });
  });
});
