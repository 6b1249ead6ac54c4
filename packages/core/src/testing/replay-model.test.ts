import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from '../define-tool.ts';
import { StreamError } from '../errors.ts';
import { runTools } from '../run-tools.ts';
import { runToolsStream } from '../run-tools-stream.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import type { Message } from '../types/message.ts';
import { createReplayModel } from './replay-model.ts';
import { parseReplayTranscript } from './replay-transcript.ts';
import type { ReplayTranscript } from './replay-transcript.ts';
import { InvalidTranscriptError, ReplayMismatchError } from './testing-errors.ts';

const transcript = JSON.parse(readFileSync(new URL('./__fixtures__/weather-transcript.json', import.meta.url), 'utf8')) as ReplayTranscript;
const weather = defineTool({ name: 'get_weather', parameters: z.object({ city: z.string() }), execute: ({ city }) => ({ city, celsius: 21 }) });
const question: Message[] = [{ role: 'user', content: 'Weather in Paris?' }];

describe('createReplayModel', () => {
  it('replays a recorded conversation through runTools', async () => {
    const model = createReplayModel(transcript);
    expect(model).toMatchObject({ provider: 'replay', modelId: 'replay-weather' });
    const result = await runTools({ model, messages: question, tools: [weather] });
    expect(result).toMatchObject({ stoppedBy: 'answer', text: 'It is 21 °C in Paris.' });
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.usage).toEqual({ inputTokens: 110, outputTokens: 21, totalTokens: 131 });
  });

  it('replays the same conversation when streamed', async () => {
    const model = createReplayModel(transcript, { chunkSize: 5 });
    const run = runToolsStream({ model, messages: question, tools: [weather] });
    const events: ChatStreamEvent[] = [];
    for await (const event of run) events.push(event);
    expect(events.filter((e) => e.type === 'text-delta').map((e) => (e.type === 'text-delta' ? e.delta : ''))).toEqual([
      'Let m',
      'e che',
      'ck.',
      'It is 21 °C ',
      'in Paris.',
    ]);
    expect((await run.result).text).toBe('It is 21 °C in Paris.');
  });

  it('keeps no state, so conversations can run side by side and start over', async () => {
    const model = createReplayModel(transcript);
    const [a, b] = await Promise.all([
      runTools({ model, messages: question, tools: [weather] }),
      runTools({ model, messages: question, tools: [weather] }),
    ]);
    expect(a.text).toBe(b.text);
    expect((await runTools({ model, messages: question, tools: [weather] })).text).toBe('It is 21 °C in Paris.');
  });

  it('throws ReplayMismatchError when the last message has another role', async () => {
    const model = createReplayModel(transcript);
    const error: unknown = await model
      .generate({ messages: [...question, { role: 'assistant', content: 'x' }, { role: 'user', content: 'and Oslo?' }] })
      .catch((caught: unknown) => caught);
    expect(ReplayMismatchError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ transcript: 'weather', turnIndex: 1 });
    expect((error as Error).message).toBe('Replay of transcript "weather", turn 2: expected the last message to come from "tool", got "user".');
  });

  it('throws ReplayMismatchError when the last message lacks the expected text', async () => {
    const model = createReplayModel(transcript);
    await expect(model.generate({ messages: [{ role: 'user', content: 'Weather in Oslo?' }] })).rejects.toThrow(
      'expected the last message to contain "Paris".',
    );
  });

  it('throws ReplayMismatchError past the end of the transcript', async () => {
    const model = createReplayModel(transcript);
    const history: Message[] = [
      ...question,
      { role: 'assistant', content: '' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'more?' },
    ];
    await expect(model.generate({ messages: history })).rejects.toThrow(/already has 2 assistant message\(s\) but the transcript has only 2 turn\(s\)/);
  });

  it('replays an error event as a StreamError', async () => {
    const model = createReplayModel({
      turns: [{ lastRole: 'user', events: [{ type: 'text-delta', delta: 'a' }, { type: 'error', message: 'overloaded' }] }],
    });
    const error: unknown = await model.generate({ messages: question }).catch((caught: unknown) => caught);
    expect(StreamError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ provider: 'replay', message: 'overloaded' });
  });
});

describe('parseReplayTranscript', () => {
  it('accepts the fixture', () => {
    expect(parseReplayTranscript(transcript).turns).toHaveLength(2);
  });

  it('lists every problem with its path', () => {
    const error: unknown = (() => {
      try {
        return parseReplayTranscript({ turns: [{ lastRole: 'robot', response: { text: 1 } }, { lastRole: 'user' }] });
      } catch (caught) {
        return caught;
      }
    })();
    expect(InvalidTranscriptError.isInstance(error)).toBe(true);
    const problems = (error as InvalidTranscriptError).problems;
    expect(problems.some((p) => p.startsWith('turns.0.lastRole:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('turns.0.response.text:'))).toBe(true);
    expect(problems).toContain('turns.1: a turn needs exactly one of "response" and "events"');
  });

  it('rejects a transcript without turns', () => {
    expect(() => parseReplayTranscript({ turns: [] })).toThrow(InvalidTranscriptError);
    expect(() => parseReplayTranscript('nope')).toThrow(/^The replay transcript is invalid: \(root\): /);
  });
});
