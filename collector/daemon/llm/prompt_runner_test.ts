import assert from "node:assert/strict";
import { promptBytes, wireSpend } from "./prompt_runner.ts";

Deno.test("promptBytes counts UTF-8 bytes, as the wire does", () => {
  assert.equal(promptBytes("abc"), 3);
  assert.equal(promptBytes("é"), 2);
});

Deno.test("wireSpend takes the runner's wire counts, else the prompt and reply themselves", () => {
  assert.deepEqual(wireSpend("prompt", { text: "reply", sentBytes: 900, receivedBytes: 70 }), {
    sent: 900,
    received: 70,
  });
  assert.deepEqual(wireSpend("prompt", { text: "reply" }), { sent: 6, received: 5 });
});
