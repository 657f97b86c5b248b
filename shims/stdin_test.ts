import assert from "node:assert/strict";
import { readStdin } from "./stdin.ts";

function streamOf(chunks: Uint8Array[], options: { close: boolean }): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      if (options.close) controller.close();
    },
  });
}

Deno.test("reads until EOF", async () => {
  const enc = new TextEncoder();
  const result = await readStdin({
    readable: streamOf([enc.encode('{"a":'), enc.encode("1}")], { close: true }),
  });
  assert.deepEqual(result, { text: '{"a":1}', overflow: false, timedOut: false });
});

Deno.test("a stream that is never closed gives up at the deadline with what it has", async () => {
  const started = performance.now();
  const result = await readStdin({
    readable: streamOf([new TextEncoder().encode("partial")], { close: false }),
    timeoutMs: 100,
  });
  assert.equal(result.text, "partial");
  assert.equal(result.timedOut, true);
  assert.ok(performance.now() - started < 2000);
});

Deno.test("input beyond the byte bound is reported as overflow", async () => {
  const result = await readStdin({
    readable: streamOf([new Uint8Array(600), new Uint8Array(600)], { close: true }),
    maxBytes: 1000,
  });
  assert.equal(result.overflow, true);
  assert.equal(result.text.length, 1000);
});

Deno.test("invalid UTF-8 is decoded with replacement characters, not an error", async () => {
  const result = await readStdin({
    readable: streamOf([new Uint8Array([0xff, 0xfe, 0x41])], { close: true }),
  });
  assert.equal(result.text, "\ufffd\ufffdA");
});
