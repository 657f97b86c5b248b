/**
 * Hang guards for tests. A project rule says speed is checked by benchmarks, never by timed
 * assertions in tests; these helpers only turn a hang (which would otherwise stall the whole test
 * run) into a clear failure. Their limits are deliberately generous — tens of seconds for work
 * that takes milliseconds — so a loaded machine never trips them, and the tests that use them
 * assert on the outcome, not on how long it took.
 *
 * @module
 */

/** The default hang limit: far above any honest run time, well below CI's patience. */
export const HANG_LIMIT_MS = 30_000;

/**
 * Resolves or rejects as `work` does, unless it has not settled after `limitMs`: then rejects
 * with an error saying `what` hung. Only useful for asynchronous work; a synchronous loop (such
 * as a regex backtracking forever) blocks the timer too, so use {@link callEachInWorker} for that.
 */
export async function failOnHang<T>(
  work: Promise<T>,
  what: string,
  limitMs: number = HANG_LIMIT_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} hung: still not settled after ${limitMs} ms`)),
      limitMs,
    );
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`
 * (default 60 s): a hang guard, generous so that a loaded machine never trips it; the poll ends
 * as soon as the condition holds.
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  options: { timeoutMs?: number; what?: string; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 100));
  }
  throw new Error(`timed out waiting for ${options.what ?? "a condition"}`);
}

/** What {@link callEachInWorker} posts to its worker. */
export interface WorkerCall {
  module: string;
  exportName: string;
  input: unknown;
}

/** What the worker posts back. */
export type WorkerReply = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Calls the synchronous or asynchronous function `exportName` of `module` on each input, one at a
 * time, in a separate worker, and returns the results in order. A call that has not answered
 * after `limitMs` terminates the worker and rejects naming the input (via `describe`), so a
 * catastrophic regex or an endless loop fails the test instead of hanging the run. Inputs and
 * results must be structured-cloneable.
 */
export async function callEachInWorker<I, O>(
  module: URL,
  exportName: string,
  inputs: readonly I[],
  options: { limitMs?: number; describe?: (input: I) => string } = {},
): Promise<O[]> {
  const limitMs = options.limitMs ?? HANG_LIMIT_MS;
  const describe = options.describe ??
    ((input: I) => JSON.stringify(input)?.slice(0, 60) ?? String(input));
  const worker = new Worker(new URL("./call_worker.ts", import.meta.url), { type: "module" });
  const results: O[] = [];
  try {
    for (const input of inputs) {
      const reply = new Promise<WorkerReply>((resolve, reject) => {
        worker.onmessage = (event: MessageEvent<WorkerReply>) => resolve(event.data);
        worker.onerror = (event: ErrorEvent) => {
          event.preventDefault();
          reject(new Error(`worker failed on ${describe(input)}: ${event.message}`));
        };
      });
      const call: WorkerCall = { module: module.href, exportName, input };
      worker.postMessage(call);
      const answer = await failOnHang(reply, `${exportName}(${describe(input)})`, limitMs);
      if (!answer.ok) throw new Error(`${exportName}(${describe(input)}) threw: ${answer.error}`);
      results.push(answer.value as O);
    }
    return results;
  } finally {
    worker.terminate();
  }
}
