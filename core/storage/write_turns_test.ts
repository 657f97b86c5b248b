// Write turns between threads: a writer on another thread, blocked while it holds its turn, is
// seen, and the wait for it ends when it lets go.
import assert from "node:assert/strict";
import { writeTurns } from "./write_turns.ts";

Deno.test("announce counts a writer for as long as it runs, even when it throws", () => {
  const turns = writeTurns();
  assert.equal(turns.waiting(), 0);
  assert.equal(turns.announce(() => turns.waiting()), 1);
  assert.throws(() =>
    turns.announce(() => {
      throw new Error("disk full");
    }), /disk full/);
  assert.equal(turns.waiting(), 0);
});

Deno.test("a blocked writer on another thread is seen, and settled() waits for it", async () => {
  const turns = writeTurns();
  const hold = new SharedArrayBuffer(4);
  const worker = new Worker(new URL("./testdata/write_turns_writer.ts", import.meta.url), {
    type: "module",
  });
  try {
    const messages: string[] = [];
    const next = () =>
      new Promise<string>((resolve) => {
        worker.onmessage = (event) => {
          messages.push(event.data);
          resolve(event.data);
        };
      });
    let message = next();
    worker.postMessage({ buffer: turns.buffer, hold });
    assert.equal(await message, "holding");
    assert.equal(turns.waiting(), 1);
    assert.equal(await turns.settled(20), false, "not while it holds its turn");
    message = next();
    const settled = turns.settled(60_000);
    Atomics.store(new Int32Array(hold), 0, 1);
    Atomics.notify(new Int32Array(hold), 0);
    assert.equal(await settled, true);
    assert.equal(turns.waiting(), 0);
    assert.equal(await message, "done");
  } finally {
    worker.terminate();
  }
});
