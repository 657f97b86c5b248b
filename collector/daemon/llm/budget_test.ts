import assert from "node:assert/strict";
import fc from "fast-check";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { llmBudget } from "./budget.ts";

Deno.test("reservations never pass the cap, whatever the order and concurrency", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5000 }),
        fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 30 }),
        async (cap, prompts) => {
          const storage = openSqliteStorage(`${dir}/${crypto.randomUUID()}.db`);
          try {
            const a = llmBudget(storage, { project_id: "a", purpose: "extract", capChars: cap });
            const b = llmBudget(storage, { project_id: "b", purpose: "reconcile", capChars: cap });
            const granted = await Promise.all(
              prompts.map((chars, i) => (i % 2 === 0 ? a : b).reserve(chars)),
            );
            await a.settle(0, { sent: 0, received: 123 });
            const day = new Date().toISOString().slice(0, 10);
            const usage = await storage.llmUsage({ day });
            assert.ok(usage.chars_sent <= cap, `${usage.chars_sent} > ${cap}`);
            assert.equal(
              usage.chars_sent,
              prompts.filter((_, i) => granted[i]).reduce((x, y) => x + y, 0),
            );
            assert.equal(usage.calls, granted.filter(Boolean).length);
            assert.equal(usage.chars_received, 123);
          } finally {
            storage.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the cap counts what crossed the wire both ways, not only the prompt", async () => {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/usage.db`);
  try {
    const budget = llmBudget(storage, { project_id: "p", purpose: "extract", capChars: 10_000 });
    assert.ok(await budget.reserve(1000));
    // The session sent 1,500 bytes in all (handshake and framing beyond the 1,000 reserved) and
    // the agent streamed 7,000 back.
    await budget.settle(1000, { sent: 1500, received: 7000 });
    const usage = await storage.llmUsage({ day: new Date().toISOString().slice(0, 10) });
    assert.equal(usage.chars_sent, 1500);
    assert.equal(usage.chars_received, 7000);
    // 8,500 spent: another 2,000-byte prompt would pass the 10,000 cap.
    assert.equal(await budget.reserve(2000), false);
    assert.ok(await budget.reserve(1500));
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a session that sent less than it reserved gives the rest back; a count never goes below zero", async () => {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/usage.db`);
  try {
    const budget = llmBudget(storage, { project_id: "p", purpose: "extract", capChars: 10_000 });
    const day = new Date().toISOString().slice(0, 10);
    assert.ok(await budget.reserve(8000));
    // Refused in the handshake: 300 bytes went out, 900 came back, the prompt never did.
    await budget.settle(8000, { sent: 300, received: 900 });
    let usage = await storage.llmUsage({ day });
    assert.equal(usage.chars_sent, 300);
    assert.equal(usage.chars_received, 900);
    // The 8,000 given back are there to spend again.
    assert.ok(await budget.reserve(8000));
    // A settle larger than what the day holds (reserved before midnight) stops at zero.
    const other = llmBudget(storage, { project_id: "q", purpose: "extract", capChars: 10_000 });
    await other.settle(5000, { sent: 0, received: 0 });
    usage = await storage.llmUsage({ day, project_id: "q" });
    assert.equal(usage.chars_sent, 0);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});
