import assert from "node:assert/strict";
import { AcpExitError } from "./acp_client.ts";
import { failedSpend, promptBytes, wireSpend } from "./prompt_runner.ts";

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

Deno.test("failedSpend takes what the error says crossed, else the whole prompt and nothing back", () => {
  const error = new AcpExitError("agent died", {
    exitCode: 1,
    exitSignal: null,
    stderrTail: "",
  });
  error.spend = { sent: 312, received: 1480 };
  assert.deepEqual(failedSpend("x".repeat(5000), error), { sent: 312, received: 1480 });
  assert.deepEqual(failedSpend("prompt", new Error("no counts")), { sent: 6, received: 0 });
  assert.deepEqual(failedSpend("prompt", { spend: { sent: -1, received: 2 } }), {
    sent: 6,
    received: 0,
  });
  assert.deepEqual(failedSpend("prompt", null), { sent: 6, received: 0 });
});
