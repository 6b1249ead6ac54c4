import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { OLLAMA_NATIVE_MODEL, OLLAMA_TEXT_MODEL, OPENAI_MODEL, startPacedUpstream } from '../helpers/paced-upstream.ts';
import type { PacedUpstream, RecordedRequest, Script, ScriptedCall, ScriptedTurn } from '../helpers/paced-upstream.ts';
import { startGatewayProcess } from './gateway-process.ts';
import type { GatewayProcess } from './gateway-process.ts';

/** The three ways a request reaches a model: OpenAI's tool_calls, Ollama's text-only model (calls written as text), Ollama's native tools. */
export type ModelPathKind = 'openai' | 'ollama-text' | 'ollama-native';

/** One model path, as `describe.each` iterates them. */
export interface ModelPath {
  kind: ModelPathKind;
  /** The gateway model name a client sends. */
  model: string;
  /** A model name on the same path that the upstream does not have. */
  missingModel: string;
}

export const MODEL_PATHS: readonly ModelPath[] = [
  { kind: 'openai', model: `openai/${OPENAI_MODEL}`, missingModel: 'openai/gpt-nonexistent' },
  { kind: 'ollama-text', model: `ollama/${OLLAMA_TEXT_MODEL}`, missingModel: 'ollama/nonexistent:1b' },
  { kind: 'ollama-native', model: `ollama/${OLLAMA_NATIVE_MODEL}`, missingModel: 'ollama/nonexistent:7b' },
];

/** The gateway process and its upstream, shared by the tests of one file. */
export interface ClientSuite {
  readonly upstream: PacedUpstream;
  readonly gateway: GatewayProcess;
  /** The chat requests the upstream got for the last test. */
  chatRequests(): RecordedRequest[];
}

/**
 * Starts one paced upstream and one gateway bin for the file; after every test checks
 * that the gateway process is alive and healthy and that no upstream request is left
 * open, then resets the upstream's script and records.
 */
export function useClientSuite(options: { pauseMs?: number } = {}): ClientSuite {
  let upstream: PacedUpstream | undefined;
  let gateway: GatewayProcess | undefined;
  beforeAll(async () => {
    upstream = await startPacedUpstream({ pauseMs: options.pauseMs ?? 5 });
    gateway = await startGatewayProcess(upstream);
  }, 30_000);
  afterEach(async () => {
    if (upstream === undefined || gateway === undefined) return;
    for (let i = 0; i < 200 && upstream.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 10));
    const alive = gateway.alive() && (await gateway.healthy());
    const inFlight = upstream.inFlight;
    upstream.reset();
    if (!alive) {
      // Later tests need a gateway: start a fresh one, and fail this test with the crash output.
      const output = gateway.output();
      gateway = await startGatewayProcess(upstream);
      expect.fail(`the gateway process died or stopped answering /healthz during this test:\n${output}`);
    }
    expect(inFlight, 'upstream requests left open after the test').toBe(0);
  }, 30_000);
  afterAll(async () => {
    await gateway?.stop();
    await upstream?.close();
  }, 30_000);
  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the client suite is not started (use it inside describe)');
    return value;
  };
  return {
    get upstream() {
      return need(upstream);
    },
    get gateway() {
      return need(gateway);
    },
    chatRequests: () => need(upstream).requests,
  };
}

/** The model calls `calls` until the request carries tool results, then answers `answer` followed by the results it saw. */
export function callsThenAnswer(calls: ScriptedCall[], answer: string, turn: Omit<ScriptedTurn, 'text' | 'toolCalls'> = {}): Script {
  return (request) => (request.toolResults.length > 0 ? { ...turn, text: `${answer} [${request.toolResults.join(' | ')}]` } : { ...turn, toolCalls: calls });
}

/** `{ city: string }` as JSON Schema, typed so every client's schema type accepts it. */
export const weatherParameters: { type: 'object'; properties: { city: { type: 'string'; description: string } }; required: string[]; additionalProperties: boolean } = {
  type: 'object',
  properties: { city: { type: 'string', description: 'City name' } },
  required: ['city'],
  additionalProperties: false,
};

/** What the model saw of the tools: native tool names, or for the text-only model the tool lines of its prompt. */
export function offeredToolNames(request: RecordedRequest): string[] {
  if (request.toolNames.length > 0) return request.toolNames;
  const names: string[] = [];
  for (const line of request.system.split('\n')) {
    if (!line.startsWith('- ')) continue;
    const open = line.indexOf('(');
    if (open > 2) names.push(line.slice(2, open));
  }
  return names;
}
