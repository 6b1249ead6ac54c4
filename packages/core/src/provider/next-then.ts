/**
 * An async iterator that can hand its next result straight to callbacks: `iterator[NEXT_THEN](onResult, onFailure)`
 * is `iterator.next().then(onResult, onFailure)` without the promise in between, the
 * callbacks running in the reaction that produced the result. Stream layers stacked on each
 * other (a provider's event stream, `guardStream`, the tool loop reading it) chain their
 * callbacks this way, so that a token read from the body crosses them in one microtask turn,
 * not one per layer (a promise and a turn per layer, on every token of every stream).
 * The key is `Symbol.for`, so duplicate copies of this package agree.
 */
export const NEXT_THEN: unique symbol = Symbol.for('toolwire.next-then') as never;

/** An iterator with `NEXT_THEN` (see there). */
export interface ChainedAsyncIterator<T> extends AsyncIterator<T> {
  [NEXT_THEN]<R>(onResult: (result: IteratorResult<T>) => R | PromiseLike<R>, onFailure: (error: unknown) => R | PromiseLike<R>): Promise<R>;
}

/**
 * `iterator.next().then(onResult, onFailure)`, through the iterator's `NEXT_THEN` when it
 * has one. Throws what `next()` throws synchronously.
 */
export function nextThen<T, R>(iterator: AsyncIterator<T>, onResult: (result: IteratorResult<T>) => R | PromiseLike<R>, onFailure: (error: unknown) => R | PromiseLike<R>): Promise<R> {
  const chained = (iterator as Partial<ChainedAsyncIterator<T>>)[NEXT_THEN];
  if (typeof chained === 'function') return chained.call(iterator, onResult, onFailure) as Promise<R>;
  return iterator.next().then(onResult, onFailure);
}

/** The callbacks a layer's `NEXT_THEN` holds while the result it waits for is on its way. */
export interface NextThenCallbacks<T> {
  onResult: (result: IteratorResult<T, undefined>) => unknown;
  onFailure: (error: unknown) => unknown;
}

/**
 * For a layer implementing `NEXT_THEN`: what `.then(onResult, onFailure)` on the promise of
 * its own step would do, without that promise when the step has its result at once.
 * `step.call(self, input)` runs; its result (or what its promise settles to) goes to
 * `onResult`, what it throws (or rejects with) to `onFailure`.
 */
export function handOn<S, I, T>(
  callbacks: NextThenCallbacks<T>,
  self: S,
  step: (this: S, input: I) => IteratorResult<T, undefined> | Promise<IteratorResult<T, undefined>>,
  input: I,
): unknown {
  const { onResult, onFailure } = callbacks;
  let result: IteratorResult<T, undefined> | Promise<IteratorResult<T, undefined>>;
  try {
    result = step.call(self, input);
  } catch (error) {
    return onFailure(error);
  }
  return result instanceof Promise ? result.then(onResult, onFailure) : onResult(result);
}
