/**
 * Turns at SQLite's one write lock between threads of one process: the collector's own writes
 * (ingest, the retrieval log, extraction, background jobs) announce themselves in a counter that
 * a background writer on another connection (the team sync Worker's pull) reads, so it can give
 * the lock back after the change it is applying instead of making them wait in SQLite's busy
 * handler. The counter is shared memory (a `SharedArrayBuffer` posted to the Worker), so a writer
 * blocked in SQLite is still seen.
 *
 * @module
 */

/** A counter of writers waiting for or holding the write lock, shared between threads. */
export interface WriteTurns {
  /** The shared memory (post it to a Worker, then `writeTurns(buffer)` there). */
  readonly buffer: SharedArrayBuffer;
  /** How many announced writers wait for the lock or hold it now. */
  waiting(): number;
  /** Runs `fn` as an announced writer. */
  announce<T>(fn: () => T): T;
  /** Resolves once no announced writer waits or writes (false when `timeoutMs` ran out first). */
  settled(timeoutMs: number): Promise<boolean>;
}

/** The turns over `buffer` (a new one when none is given). */
export function writeTurns(buffer: SharedArrayBuffer = new SharedArrayBuffer(4)): WriteTurns {
  const count = new Int32Array(buffer, 0, 1);
  return {
    buffer,
    waiting: () => Atomics.load(count, 0),
    announce(fn) {
      Atomics.add(count, 0, 1);
      try {
        return fn();
      } finally {
        Atomics.sub(count, 0, 1);
        Atomics.notify(count, 0);
      }
    },
    async settled(timeoutMs) {
      const until = performance.now() + timeoutMs;
      for (;;) {
        const now = Atomics.load(count, 0);
        if (now === 0) return true;
        const left = until - performance.now();
        if (left <= 0) return false;
        const wait = Atomics.waitAsync(count, 0, now, left);
        if (wait.async) await wait.value;
      }
    },
  };
}
