import assert from "node:assert/strict";
import { failOnHang } from "@kiro-learn/core/testing";
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
  const result = await failOnHang(
    readStdin({
      readable: streamOf([new TextEncoder().encode("partial")], { close: false }),
      timeoutMs: 100,
    }),
    "readStdin on a stream that is never closed",
  );
  assert.deepEqual(result, { text: "partial", overflow: false, timedOut: true });
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

/** A ByteSource serving `chunks`, then EOF (or never answering when `close` is false). */
function sourceOf(chunks: Uint8Array[], options: { close: boolean }) {
  let i = 0;
  return {
    read(p: Uint8Array): Promise<number | null> {
      if (i >= chunks.length) {
        return options.close ? Promise.resolve(null) : new Promise<null>(() => {});
      }
      const chunk = chunks[i++];
      p.set(chunk);
      return Promise.resolve(chunk.length);
    },
  };
}

Deno.test("reads a plain byte source (Deno.stdin's shape) until EOF, bounded in time and size", async () => {
  const enc = new TextEncoder();
  assert.deepEqual(
    await readStdin({ source: sourceOf([enc.encode('{"a":'), enc.encode("1}")], { close: true }) }),
    { text: '{"a":1}', overflow: false, timedOut: false },
  );
  const open = await readStdin({
    source: sourceOf([enc.encode("partial")], { close: false }),
    timeoutMs: 50,
  });
  assert.deepEqual(open, { text: "partial", overflow: false, timedOut: true });
  const big = await readStdin({
    source: sourceOf([new Uint8Array(600), new Uint8Array(600)], { close: true }),
    maxBytes: 1000,
  });
  assert.equal(big.overflow, true);
  assert.equal(big.text.length, 1000);
});

Deno.test("a real process's stdin is read whole, large payloads included", async () => {
  const payload = "x".repeat(3_000_000);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { readStdin } from "${new URL("./stdin.ts", import.meta.url).href}";
       const r = await readStdin(); console.log(r.text.length, r.overflow, r.timedOut);`,
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(payload));
  await writer.close();
  const out = await child.output();
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "3000000 false false");
});
