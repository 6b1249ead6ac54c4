import { createResponseCollector } from './collect-stream.ts';
import { runToolLoop } from './run-tools-loop.ts';
import type { RunToolsOptions, RunToolsResult } from './run-tools-types.ts';
import type { ChatStreamEvent } from './types/chat-stream-event.ts';
import { nextThen } from './provider/next-then.ts';

/** What `runToolsStream` returns: the events of every step, and the run's outcome. */
export interface RunToolsStream extends AsyncIterable<ChatStreamEvent> {
  /** Settles when the run ends, like `runTools`'s promise (it runs whether or not you iterate). */
  readonly result: Promise<RunToolsResult>;
}

/**
 * The streaming form of `runTools` (same options, same stopping rules). Iterating yields
 * each step's model events as they arrive (a `finish` per step, `finishReason:
 * 'tool-calls'` for steps that led to tool calls) and a `tool-result` event for every call
 * run here, as soon as it completes. `result` resolves with the same `RunToolsResult`.
 *
 * The run starts when you iterate or read `result`, and events are buffered until you
 * read them. A model failure after events went out ends the iteration with an `error`
 * event (and rejects `result`); a failure before any event, or an abort, rejects the
 * iteration's `next()`. Leaving the loop early (`break`) aborts the run. Iterate it once:
 * every iterator reads from the same buffer.
 *
 * @example
 * const run = runToolsStream({ model, messages, tools: [getWeather] });
 * for await (const event of run) if (event.type === 'text-delta') process.stdout.write(event.delta);
 * const { stoppedBy } = await run.result;
 */
/**
 * Past this many events waiting for the consumer, the model stream is not read until the
 * consumer has taken half of them: a client that reads slowly holds back the upstream (its
 * socket, then TCP) instead of the whole answer piling up here. Only while someone iterates:
 * a run read through `result` alone runs to its end.
 */
const HIGH_WATER_EVENTS = 256;

export function runToolsStream(options: RunToolsOptions): RunToolsStream {
  // The run's signal: the caller's, and the consumer leaving early. (Cheaper than `AbortSignal.any` per run.)
  const own = new AbortController();
  const signal = own.signal;
  const callerSignal = options.signal;
  const onCallerAbort = (): void => own.abort(callerSignal?.reason);
  // Linked when the run starts and unlinked when it ends, so a run never started holds nothing.
  const link = (): void => {
    if (callerSignal?.aborted === true) onCallerAbort();
    else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  };
  const unlink = (): void => callerSignal?.removeEventListener('abort', onCallerAbort);
  const queue: ChatStreamEvent[] = [];
  let done = false;
  let failure: { error: unknown } | undefined;
  let delivered = false;
  let started: Promise<RunToolsResult> | undefined;
  let iterating = false;
  // The model stream's next read, held back while the consumer is `HIGH_WATER_EVENTS` behind.
  let paused: (() => void) | undefined;
  const mayRead = (resume: () => void): boolean => {
    if (!iterating || queue.length < HIGH_WATER_EVENTS) return true;
    paused = resume;
    return false;
  };
  /** After the consumer took an event: reads on once it is half-way through the backlog. */
  const took = (): void => {
    if (paused === undefined || queue.length > HIGH_WATER_EVENTS / 2) return;
    const resume = paused;
    paused = undefined;
    resume();
  };
  // The consumer's `next()` while nothing was ready: settled as soon as something is.
  let waiting: { resolve: (result: IteratorResult<ChatStreamEvent>) => void; reject: (error: unknown) => void } | undefined;

  /** Hands a waiting `next()` what it waits for: the next event, the failure, or the end. */
  const wake = (): void => {
    const waiter = waiting;
    if (waiter === undefined) return;
    const event = queue.shift();
    if (event !== undefined) {
      waiting = undefined;
      delivered = true;
      waiter.resolve({ value: event, done: false });
      took();
    } else if (failure !== undefined) {
      waiting = undefined;
      waiter.reject(failure.error);
    } else if (done) {
      waiting = undefined;
      waiter.resolve({ value: undefined, done: true });
    }
  };

  const push = (event: ChatStreamEvent): void => {
    const waiter = waiting;
    if (waiter !== undefined && queue.length === 0) {
      // What `wake` would do with this one event, without it passing through the queue (on every token).
      waiting = undefined;
      delivered = true;
      waiter.resolve({ value: event, done: false });
      took();
      return;
    }
    queue.push(event);
    wake();
  };

  const start = (): Promise<RunToolsResult> => {
    if (started) return started;
    link();
    let sawError = false;
    started = runToolLoop({
      options,
      signal,
      onToolResult: (result) => push({ type: 'tool-result', result }),
      callModel: async (request) => {
        const collector = createResponseCollector();
        await pump(
          options.model.stream(request),
          signal,
          (event) => {
            if (event.type === 'error') sawError = true;
            push(event);
            collector.add(event);
          },
          mayRead,
        );
        return collector.response();
      },
    }).then(
      (result) => {
        unlink();
        done = true;
        wake();
        return result;
      },
      (error: unknown) => {
        unlink();
        done = true;
        // An abort always rejects the iteration; other failures become a final `error`
        // event once events went out (the ChatModel stream convention).
        if (signal.aborted || !(delivered || queue.length > 0)) failure = { error };
        else if (!sawError) queue.push({ type: 'error', error: error instanceof Error ? error : new Error(String(error)) });
        wake();
        throw error;
      },
    );
    started.catch(noop);
    return started;
  };

  return {
    get result() {
      return start();
    },
    [Symbol.asyncIterator](): AsyncIterator<ChatStreamEvent> {
      iterating = true;
      void start();
      return {
        // Not an async function: an event already queued costs one resolved promise, a wait one promise.
        next(): Promise<IteratorResult<ChatStreamEvent>> {
          const event = queue.shift();
          if (event !== undefined) {
            delivered = true;
            took();
            return Promise.resolve({ value: event, done: false });
          }
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the run's failure (or abort reason), passed on as it is
          if (failure !== undefined) return Promise.reject(failure.error);
          if (done) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve, reject) => {
            waiting = { resolve, reject };
          });
        },
        return(): Promise<IteratorResult<ChatStreamEvent>> {
          if (!done) own.abort(new DOMException('The stream consumer stopped reading.', 'AbortError'));
          queue.length = 0;
          // The abort ends a paused read; nothing resumes it.
          paused = undefined;
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
}

/**
 * Reads a model stream to its end, handing each event to `onEvent` (which may throw to
 * stop), and stops waiting as soon as `signal` aborts. One abort listener per stream, and
 * per event only the source's own `next()` promise and one reaction to it (no generator,
 * no await, no wrapper promise in between): events are the hot path. Stopped early (an
 * abort, `onEvent` throwing, the source failing), it lets the source clean up (`return`).
 * `mayRead` may hold back the next read: it keeps the function that resumes it (an abort
 * still settles at once).
 */
function pump(events: AsyncIterable<ChatStreamEvent>, signal: AbortSignal, onEvent: (event: ChatStreamEvent) => void, mayRead: (resume: () => void) => boolean): Promise<void> {
  signal.throwIfAborted();
  const iterator = events[Symbol.asyncIterator]();
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (failure: { error: unknown } | undefined): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (failure === undefined) {
        resolve();
        return;
      }
      // Stopped before the end: let the model stream clean up (a throwing `return` changes nothing).
      try {
        void iterator.return?.()?.catch(noop);
      } catch {
        // Nothing more to release.
      }
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason or the source's failure, passed on as it is
      reject(failure.error);
    };
    const onAbort = (): void => settle({ error: signal.reason });
    const onNext = (next: IteratorResult<ChatStreamEvent>): void => {
      if (settled) return;
      if (signal.aborted) return settle({ error: signal.reason });
      if (next.done === true) return settle(undefined);
      try {
        onEvent(next.value);
      } catch (error) {
        return settle({ error });
      }
      if (mayRead(resume)) step();
    };
    const resume = (): void => {
      if (!settled) step();
    };
    const onFailure = (error: unknown): void => settle({ error });
    const step = (): void => {
      try {
        // The model stream's layers hand the event on in one turn when they can (see `NEXT_THEN`).
        void nextThen(iterator, onNext, onFailure);
      } catch (error) {
        settle({ error });
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    step();
  });
}

function noop(): void {
  // Rejections are delivered through `result` and the iterator.
}
