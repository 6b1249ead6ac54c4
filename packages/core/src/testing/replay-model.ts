import { collectStream } from '../collect-stream.ts';
import type { ChatModel } from '../types/chat-model.ts';
import type { ChatRequest } from '../types/chat-request.ts';
import type { ChatResponse } from '../types/chat-response.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import type { Message } from '../types/message.ts';
import { parseReplayTranscript, toChatStreamEvents } from './replay-transcript.ts';
import type { ReplayTranscript, ReplayTurn } from './replay-transcript.ts';
import { fromList } from './scripted-model.ts';
import { toChatResponse, toStreamEvents } from './scripted-response.ts';
import { ReplayMismatchError } from './testing-errors.ts';

/** Options of `createReplayModel`. */
export interface ReplayModelOptions {
  /** Default `'replay'`. */
  provider?: string;
  /** Default: the transcript's `modelId`, else its `name`, else `'replay'`. */
  modelId?: string;
  /** Characters per delta when streaming a turn given as `response` (default 16). */
  chunkSize?: number;
}

/**
 * A `ChatModel` that replays a recorded conversation (`ReplayTranscript`, e.g. a parsed
 * JSON file; it is validated here). It keeps no state: a request is answered by the turn
 * whose index is the number of assistant messages already in `request.messages`, so one
 * model serves any number of conversations at once, and each conversation walks the
 * transcript from the start. The request's last message must have the turn's `lastRole`
 * (and contain `lastContentIncludes`), else the call throws `ReplayMismatchError`, as it
 * does when the conversation runs past the transcript's end.
 *
 * @example
 * const transcript = JSON.parse(await readFile('weather.json', 'utf8'));
 * const model = createReplayModel(transcript);
 * const { text } = await runTools({ model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools });
 */
export function createReplayModel(transcript: ReplayTranscript, options: ReplayModelOptions = {}): ChatModel {
  const checked = parseReplayTranscript(transcript);
  const name = checked.name ?? 'unnamed';
  const provider = options.provider ?? 'replay';
  const chunkSize = options.chunkSize ?? 16;

  const turnFor = (request: ChatRequest): { turn: ReplayTurn; index: number } => {
    request.signal?.throwIfAborted();
    const index = request.messages.filter((message) => message.role === 'assistant').length;
    const turn = checked.turns[index];
    if (!turn) {
      throw new ReplayMismatchError({
        transcript: name,
        turnIndex: index,
        problem: `the conversation already has ${index} assistant message(s) but the transcript has only ${checked.turns.length} turn(s). Start a new conversation or record a longer transcript.`,
      });
    }
    const last = request.messages.at(-1);
    if (last?.role !== turn.lastRole) {
      throw new ReplayMismatchError({
        transcript: name,
        turnIndex: index,
        problem: `expected the last message to come from "${turn.lastRole}", got ${last ? `"${last.role}"` : 'no messages'}.`,
      });
    }
    if (turn.lastContentIncludes !== undefined && !textOf(last).includes(turn.lastContentIncludes)) {
      throw new ReplayMismatchError({
        transcript: name,
        turnIndex: index,
        problem: `expected the last message to contain ${JSON.stringify(turn.lastContentIncludes)}.`,
      });
    }
    return { turn, index };
  };

  const eventsOf = (turn: ReplayTurn, index: number): ChatStreamEvent[] =>
    turn.events ? toChatStreamEvents(turn.events, provider) : toStreamEvents(toChatResponse(turn.response ?? {}, index), chunkSize);

  return {
    provider,
    modelId: options.modelId ?? checked.modelId ?? checked.name ?? 'replay',
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const { turn, index } = turnFor(request);
      if (turn.response) return toChatResponse(turn.response, index);
      return collectStream(fromList(eventsOf(turn, index), request.signal));
    },
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
      const { turn, index } = turnFor(request);
      yield* fromList(eventsOf(turn, index), request.signal);
    },
  };
}

function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
