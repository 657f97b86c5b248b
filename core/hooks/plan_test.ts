import assert from "node:assert/strict";
import {
  clientIdFrom,
  hookStdout,
  joinBlocks,
  MAX_SESSION_ID,
  oneEventPlans,
  parseHookPayload,
  sessionEndText,
  str,
  validSessionId,
} from "./plan.ts";
import { MAX_HOOK_OUTPUT_BYTES, OUTPUT_CUT_MARKER } from "./truncate.ts";

Deno.test("parseHookPayload: one JSON object, or why not", () => {
  assert.deepEqual(parseHookPayload('\uFEFF {"a": 1}\n'), { ok: true, payload: { a: 1 } });
  assert.deepEqual(parseHookPayload("  "), { ok: false, error: "empty input" });
  assert.deepEqual(parseHookPayload("{nope"), { ok: false, error: "input is not valid JSON" });
  for (const text of ["[1]", "null", "3", '"s"']) {
    assert.deepEqual(parseHookPayload(text), { ok: false, error: "input is not a JSON object" });
  }
});

Deno.test("hookStdout: blocks in order, blanks dropped, capped at the hook output limit", () => {
  assert.equal(hookStdout([]), "");
  assert.equal(hookStdout(["", "  \n"]), "");
  assert.equal(hookStdout([" first\n", "", "second"]), "first\n\nsecond\n");
  const long = hookStdout(["x".repeat(MAX_HOOK_OUTPUT_BYTES), "y"]);
  assert.ok(new TextEncoder().encode(long).length <= MAX_HOOK_OUTPUT_BYTES);
  assert.ok(long.endsWith(`${OUTPUT_CUT_MARKER}\n`));
});

Deno.test("joinBlocks: trimmed blocks, blanks dropped, a blank line between, nothing capped", () => {
  assert.equal(joinBlocks([]), "");
  assert.equal(joinBlocks([" first\n", "", "  ", "second "]), "first\n\nsecond");
  const long = "x".repeat(MAX_HOOK_OUTPUT_BYTES + 10);
  assert.equal(joinBlocks([long]), long);
});

Deno.test("validSessionId, str and clientIdFrom", () => {
  assert.equal(validSessionId(" abc "), "abc");
  assert.equal(validSessionId("a\nb"), null);
  assert.equal(validSessionId(""), null);
  assert.equal(validSessionId(7), null);
  assert.equal(validSessionId("s".repeat(200))?.length, MAX_SESSION_ID);
  assert.equal(str("x"), "x");
  assert.equal(str(1), undefined);
  assert.equal(clientIdFrom(" box\n"), "box");
  assert.equal(clientIdFrom(""), "localhost");
  assert.equal(clientIdFrom(undefined), "localhost");
  assert.equal(clientIdFrom("h".repeat(300)).length, 256);
});

Deno.test("oneEventPlans: one event per plan, stored events neither retrieve nor print", () => {
  const { plan, stored } = oneEventPlans({
    surface: "copilot-cli",
    hook: "postToolUse",
    sessionId: "s",
    cwd: "/p",
  });
  const event = stored("note", { type: "text", content: "x" });
  assert.deepEqual(event, {
    kind: "note",
    body: { type: "text", content: "x" },
    query: "",
    print: false,
  });
  assert.deepEqual(plan(event, "fast"), {
    surface: "copilot-cli",
    hook: "postToolUse",
    sessionId: "s",
    cwd: "/p",
    events: [event],
    timeout: "fast",
  });
});

Deno.test("oneEventPlans: a stored event, a session's start, a prompt and a session's end, as every agent plans them", () => {
  const firing = { surface: "gemini-cli", hook: "h", sessionId: "s", cwd: "/p" } as const;
  const { store, started, prompted, ended } = oneEventPlans(firing);
  assert.deepEqual(store("session_summary", { type: "text", content: "done" }), {
    ...firing,
    events: [{
      kind: "session_summary",
      body: { type: "text", content: "done" },
      query: "",
      print: false,
    }],
    timeout: "store",
  });
  const note = { kind: "note", body: { type: "text", content: "session started" } } as const;
  assert.deepEqual(started(true), {
    ...firing,
    events: [{ ...note, query: "", print: false }],
    timeout: "store",
  });
  assert.deepEqual(started(false), {
    ...firing,
    events: [{ ...note, query: "resume", print: true }],
    timeout: "retrieve",
  });
  assert.deepEqual(prompted("fix the build"), {
    ...firing,
    events: [{
      kind: "prompt",
      body: { type: "text", content: "fix the build" },
      query: "retrieve-start",
      print: true,
    }],
    timeout: "retrieve",
  });
  assert.equal(prompted(undefined), null);
  assert.equal(prompted(" \n "), null);
  assert.deepEqual(ended("logout"), {
    ...firing,
    events: [{
      kind: "note",
      body: { type: "text", content: "session ended (logout)" },
      query: "",
      print: false,
    }],
    timeout: "fast",
  });
});

Deno.test("sessionEndText: the reason, cut, when there is one", () => {
  assert.equal(sessionEndText(" complete "), "session ended (complete)");
  assert.equal(sessionEndText("x".repeat(300)), `session ended (${"x".repeat(100)})`);
  assert.equal(sessionEndText(undefined), "session ended");
  assert.equal(sessionEndText(42), "session ended");
});
