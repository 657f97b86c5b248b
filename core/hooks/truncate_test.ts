import assert from "node:assert/strict";
import fc from "fast-check";
import type { EventBody } from "@kiro-learn/core/schemas";
import { SHIM_BODY_CAP_BYTES, TRUNCATION_MARKER } from "@kiro-learn/core/schemas/limits";
import {
  capHookOutput,
  cutString,
  MAX_HOOK_OUTPUT_BYTES,
  MIN_KEPT_CHARS,
  OUTPUT_CUT_MARKER,
  serializedBytes,
  truncateBody,
} from "./truncate.ts";

// deno-lint-ignore no-explicit-any
function dataOf(body: EventBody): any {
  if (body.type !== "json") throw new Error(`expected a json body, got ${body.type}`);
  return body.data;
}

Deno.test("a body under the cap is returned as it is", () => {
  const body: EventBody = { type: "text", content: "hello" };
  const result = truncateBody(body, SHIM_BODY_CAP_BYTES);
  assert.equal(result.truncated, false);
  assert.equal(result.body, body);
});

Deno.test("a huge tool stdout is cut to the cap, keeps its head, other fields intact", () => {
  const stdout = "ok line\n".repeat(200_000); // 1.6 MB
  const body: EventBody = {
    type: "json",
    data: {
      tool_name: "execute_bash",
      tool_input: { command: "cat big.log" },
      tool_response: { success: true, result: [{ exit_status: "0", stdout, stderr: "" }] },
    },
  };
  const { body: cut, truncated } = truncateBody(body, SHIM_BODY_CAP_BYTES);
  assert.equal(truncated, true);
  assert.ok(serializedBytes(cut) <= SHIM_BODY_CAP_BYTES);
  assert.equal(cut.type, "json");
  const data = dataOf(cut);
  assert.equal(data.tool_name, "execute_bash");
  assert.deepEqual(data.tool_input, { command: "cat big.log" });
  const kept: string = data.tool_response.result[0].stdout;
  assert.ok(kept.startsWith("ok line\nok line\n"));
  assert.ok(kept.endsWith(TRUNCATION_MARKER));
  // Nearly all of the budget is used: the cut is not wasteful.
  assert.ok(serializedBytes(cut) > SHIM_BODY_CAP_BYTES * 0.95);
  // The input was not modified.
  assert.equal(dataOf(body).tool_response.result[0].stdout.length, stdout.length);
});

Deno.test("two large strings are levelled to a common length (both heads kept)", () => {
  const body: EventBody = {
    type: "json",
    data: { stdout: "a".repeat(400_000), stderr: "b".repeat(400_000) },
  };
  const { body: cut } = truncateBody(body, SHIM_BODY_CAP_BYTES);
  const data = (cut as { data: Record<string, string> }).data;
  assert.ok(serializedBytes(cut) <= SHIM_BODY_CAP_BYTES);
  assert.ok(Math.abs(data.stdout.length - data.stderr.length) <= 1);
  assert.ok(data.stdout.length > 200_000);
});

Deno.test("a huge array of small numbers falls back to a cut rendering, still valid", () => {
  const body: EventBody = {
    type: "json",
    data: { tool_name: "list", tool_response: Array.from({ length: 300_000 }, (_, i) => i) },
  };
  const { body: cut, truncated } = truncateBody(body, 65_536);
  assert.equal(truncated, true);
  assert.ok(serializedBytes(cut) <= 65_536);
  const data = (cut as { data: Record<string, unknown> }).data;
  assert.equal(data.tool_name, "list");
  assert.ok(String(data._truncated).endsWith(TRUNCATION_MARKER));
});

Deno.test("cutString never splits a surrogate pair", () => {
  const text = "😀".repeat(10);
  for (let n = 0; n <= text.length; n++) {
    const cut = cutString(text, n).slice(0, -TRUNCATION_MARKER.length);
    assert.doesNotThrow(() => encodeURIComponent(cut));
  }
});

Deno.test("property: any body fits the cap, stays valid JSON, and says when it was cut", () => {
  const bigString = fc.oneof(
    fc.string({ maxLength: 50 }),
    fc.string({ unit: "grapheme", minLength: 0, maxLength: 3000 }),
    fc.constantFrom("\n", '"', "é", "😀", "\\").chain((ch) =>
      fc.integer({ min: 0, max: 40_000 }).map((n) => ch.repeat(n))
    ),
  );
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      bigString,
      fc.integer(),
      fc.boolean(),
      fc.array(tie("value"), { maxLength: 5 }),
      fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 5 }),
    ),
  })).value;
  const body: fc.Arbitrary<EventBody> = fc.oneof(
    bigString.map((content) => ({ type: "text" as const, content })),
    fc.array(fc.record({ role: fc.constantFrom("user", "assistant"), content: bigString }), {
      minLength: 1,
      maxLength: 4,
    }).map((turns) => ({ type: "message" as const, turns })),
    json.map((data) => ({ type: "json" as const, data })),
  );
  fc.assert(
    fc.property(body, fc.integer({ min: 4096, max: 60_000 }), (input, cap) => {
      const { body: out, truncated } = truncateBody(input, cap);
      assert.ok(serializedBytes(out) <= cap, `over cap: ${serializedBytes(out)} > ${cap}`);
      assert.equal(JSON.stringify(JSON.parse(JSON.stringify(out))), JSON.stringify(out));
      assert.equal(out.type, input.type);
      if (serializedBytes(input) <= cap) assert.equal(truncated, false);
      else assert.ok(JSON.stringify(out).includes(TRUNCATION_MARKER.trim()));
    }),
    { numRuns: 150 },
  );
});

Deno.test("short strings are never shortened", () => {
  const body: EventBody = {
    type: "json",
    data: { tool_name: "x".repeat(MIN_KEPT_CHARS), big: "y".repeat(100_000) },
  };
  const { body: cut } = truncateBody(body, 16_384);
  assert.equal((cut as { data: Record<string, string> }).data.tool_name.length, MIN_KEPT_CHARS);
});

Deno.test("hook output is capped under both agents' limits, at a record boundary, with a marker", () => {
  const record = (i: number) => `### record ${i}\n${"é".repeat(300)} detail ${i}`;
  const text = Array.from({ length: 60 }, (_, i) => record(i)).join("\n\n") + "\n";
  const out = capHookOutput(text);
  assert.ok(new TextEncoder().encode(out).length <= MAX_HOOK_OUTPUT_BYTES);
  assert.ok(out.length <= 10_000, "Claude Code's 10,000 characters");
  assert.ok(out.endsWith(`${OUTPUT_CUT_MARKER}\n`));
  const kept = out.slice(0, -OUTPUT_CUT_MARKER.length - 2);
  assert.match(kept, /detail \d+$/, "the last kept record is whole");
  assert.equal(capHookOutput("short\n"), "short\n");
  assert.equal(capHookOutput("x".repeat(20_000) + "😀", 100).length <= 100, true);
});
