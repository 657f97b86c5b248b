/**
 * Timeouts for a shim without `setTimeout`: in Deno 2.9 the first `setTimeout` of a process
 * costs about 5 ms of start-up, `AbortSignal.timeout` well under 1 ms (measured).
 *
 * The timer behind {@linkcode after} cannot be cleared, only disarmed, and it keeps the event
 * loop alive until it fires; shims end with an explicit `Deno.exit`, so that costs nothing.
 *
 * @module
 */

/** Calls `fn` once after `ms` milliseconds; the returned function disarms it. */
export function after(ms: number, fn: () => void): () => void {
  const signal = AbortSignal.timeout(Math.max(0, Math.round(ms)));
  const listener = () => fn();
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}
