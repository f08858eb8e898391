// A streamed route's events from a producer that pushes them (a callback-driven run, such as
// the copilot's tool loop), as the async iterable a StreamAnswer hands the runtime.

/**
 * `produce` emits events and resolves when it is done (or rejects); the iterable yields them
 * in order, then ends (or throws what `produce` threw). `signal` is passed through: the
 * runtime aborts it when the client goes away or the stream is closed by policy.
 */
export function streamOf<E>(produce: (emit: (event: E) => void, signal: AbortSignal) => Promise<void>): (signal: AbortSignal) => AsyncIterable<E> {
  return (signal) => ({
    async *[Symbol.asyncIterator]() {
      const queue: E[] = [];
      // Set by the producer's callbacks, read by the loop (an object, so neither is narrowed away).
      const state: { finished: boolean; failure: { error: unknown } | null; wake: () => void } = { finished: false, failure: null, wake: () => {} };
      produce((event) => {
        queue.push(event);
        state.wake();
      }, signal).then(
        () => {
          state.finished = true;
          state.wake();
        },
        (error: unknown) => {
          state.failure = { error };
          state.finished = true;
          state.wake();
        },
      );
      for (;;) {
        while (queue.length > 0) yield queue.shift() as E;
        if (state.finished) {
          if (state.failure !== null) throw state.failure.error;
          return;
        }
        await new Promise<void>((resolve) => {
          state.wake = resolve;
        });
      }
    },
  });
}
