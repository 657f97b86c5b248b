import assert from "node:assert/strict";
import { settlesWithin } from "./settle.ts";

Deno.test("settlesWithin: true for work that fulfils in time", async () => {
  assert.equal(await settlesWithin(Promise.resolve("done"), 1_000), true);
});

Deno.test("settlesWithin: true for work that rejects in time (settled is settled)", async () => {
  assert.equal(await settlesWithin(Promise.reject(new Error("boom")), 1_000), true);
});

Deno.test("settlesWithin: false for work that never settles", async () => {
  assert.equal(await settlesWithin(new Promise(() => {}), 10), false);
});

Deno.test("settlesWithin: the deadline's timer is cleared when the work wins", async () => {
  // A timer left running would keep a closing process alive for the whole deadline.
  const started: unknown[] = [];
  const cleared: unknown[] = [];
  const { setTimeout: realSet, clearTimeout: realClear } = globalThis;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    const id = realSet(fn, ms);
    started.push(id);
    return id;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((id?: Parameters<typeof clearTimeout>[0]) => {
    if (id !== undefined) cleared.push(id);
    realClear(id);
  }) as typeof clearTimeout;
  try {
    assert.equal(await settlesWithin(Promise.resolve(), 60_000), true);
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
  assert.equal(started.length, 1);
  assert.deepEqual(cleared, started);
});
