import assert from "node:assert/strict";
import { hookStdout, MAX_HOOK_OUTPUT_BYTES, OUTPUT_CUT_MARKER } from "@kiro-learn/core/hooks";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { failOnHang, makeEvent, makeRecord } from "@kiro-learn/core/testing";
import { createAssembler, queryFromBody, type Searcher } from "./assembler.ts";
import {
  createResumeAssembler,
  RESUME_HEADER,
  SESSION_START_QUERY,
  withSessionStart,
} from "./resume.ts";

async function withStorage<T>(fn: (s: ReturnType<typeof openSqliteStorage>) => Promise<T>) {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/db.sqlite`);
  try {
    return await fn(storage);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const prompt = (text: string) => makeEvent({ body: { type: "text", content: text } });

Deno.test("a search slower than the budget gives an empty answer, audited as a timeout", async () => {
  await withStorage(async (storage) => {
    let release!: () => void;
    const never: Searcher = () =>
      new Promise((resolve) => release = () => resolve([{ record: makeRecord(), score: 1 }]));
    const retrieve = createAssembler({
      storage,
      search: never,
      budgetMs: 20,
      limit: 5,
      tokenBudget: 500,
    });
    const result = await failOnHang(retrieve(prompt("anything")), "retrieval past its budget");
    assert.deepEqual(result.records, []);
    assert.equal(result.context, "");
    release();
    const audit = await storage.listRetrievals({ limit: 1 });
    assert.equal(audit[0].outcome, "timeout");
  });
});

Deno.test("a search that throws, or an audit that fails, never throws out", async () => {
  await withStorage(async (storage) => {
    const failing: Searcher = () => Promise.reject(new Error("boom"));
    const retrieve = createAssembler({
      storage,
      search: failing,
      budgetMs: 500,
      limit: 5,
      tokenBudget: 500,
    });
    assert.deepEqual((await retrieve(prompt("anything"))).records, []);
    assert.equal((await storage.listRetrievals({ limit: 1 }))[0].outcome, "error");
    const record = makeRecord({ title: "the answer" });
    const brokenAudit = {
      injectedInSession: () => Promise.resolve([]),
      logRetrieval: () => Promise.reject(new Error("disk full")),
    } as unknown as typeof storage;
    const ok = createAssembler({
      storage: brokenAudit,
      search: () => Promise.resolve([{ record, score: 1 }]),
      budgetMs: 500,
      limit: 5,
      tokenBudget: 500,
    });
    const result = await ok(prompt("anything"));
    assert.deepEqual(result.records, [record.record_id]);
    assert.match(result.context, /the answer/);
  });
});

Deno.test("an empty prompt searches nothing; the query comes from every body shape", async () => {
  await withStorage(async (storage) => {
    let calls = 0;
    const retrieve = createAssembler({
      storage,
      search: () => (calls++, Promise.resolve([])),
      budgetMs: 500,
      limit: 5,
      tokenBudget: 500,
    });
    assert.deepEqual(await retrieve(prompt("   ")), { context: "", records: [], latency_ms: 0 });
    assert.equal(calls, 0);
  });
  assert.equal(queryFromBody({ type: "text", content: "a" }), "a");
  assert.equal(
    queryFromBody({
      type: "message",
      turns: [{ role: "user", content: "x" }, { role: "user", content: "y" }],
    }),
    "y",
  );
  assert.equal(queryFromBody({ type: "json", data: { k: 1 } }), '{"k":1}');
});

Deno.test("a record the session's start block showed is not repeated by its prompts' blocks", async () => {
  await withStorage(async (storage) => {
    const records = ["alpha", "beta", "gamma"].map((w) =>
      makeRecord({ title: `parser ${w} fix`, summary: `the parser ${w} case` })
    );
    for (const r of records) await storage.putRecord(r);
    const namespace = records[0].namespace;
    const retrieve = createAssembler({ storage, budgetMs: 2000, limit: 3, tokenBudget: 2000 });
    const resume = createResumeAssembler({ storage, tokenBudget: 2000 });
    const fire = async (session: string, kind: "note" | "prompt", text: string) => {
      const event = makeEvent({
        namespace,
        session_id: session,
        kind,
        body: { type: "text", content: text },
      });
      await storage.ingestEvent(event, { project_id: "p", enqueue: false });
      return (await (kind === "note" ? resume : retrieve)(event)).records;
    };
    const shown = await fire("session-1", "note", "session started");
    assert.ok(shown.length > 0, "the start block shows the project's recent records");
    const first = await fire("session-1", "prompt", "parser fix");
    assert.ok(first.every((id) => !shown.includes(id)), "no record twice in one request");
    // Prompts are answered on their own: asking again gives the same answer.
    assert.deepEqual(await fire("session-1", "prompt", "parser fix"), first);
    // Another session has not been shown anything yet.
    assert.equal((await fire("session-2", "prompt", "parser fix")).length, 3);
  });
});

Deno.test("a session whose start only stored gets the start block with its first prompt, once, and no record twice", async () => {
  await withStorage(async (storage) => {
    const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
    const records = words.map((w) =>
      makeRecord({ title: `parser ${w} fix`, summary: `the parser ${w} case` })
    );
    for (const r of records) await storage.putRecord(r);
    const namespace = records[0].namespace;
    const resume = createResumeAssembler({ storage, tokenBudget: 2000 });
    const retrieve = withSessionStart(
      createAssembler({ storage, budgetMs: 2000, limit: 3, tokenBudget: 2000 }),
      { resume, storage },
    );
    const fire = async (session: string, kind: "note" | "prompt", sessionStart: boolean) => {
      const event = makeEvent({
        namespace,
        session_id: session,
        kind,
        body: { type: "text", content: kind === "note" ? "session started" : "parser fix" },
      });
      await storage.ingestEvent(event, { project_id: "p", enqueue: false });
      return await (kind === "note" ? resume(event) : retrieve(event, { sessionStart }));
    };
    // Claude Code's startup: the session start stored only; its first prompt leads with the block.
    const quiet = "quiet-start";
    const first = await fire(quiet, "prompt", true);
    assert.ok(first.context.startsWith(RESUME_HEADER), first.context.slice(0, 200));
    assert.equal(first.context.split(RESUME_HEADER).length - 1, 1);
    assert.equal(new Set(first.records).size, first.records.length, "no record twice");
    // The start block shows the five newest; the prompt's block (limit 3) the other three.
    assert.equal(first.records.length, 8, first.context);
    const blocks = first.context.split("\n\n## ");
    assert.ok(blocks.length >= 2, `two blocks: ${first.context}`);
    // The next prompt of that session gets its own block only.
    const second = await fire(quiet, "prompt", true);
    assert.ok(!second.context.includes(RESUME_HEADER), second.context.slice(0, 200));
    assert.ok(second.records.length > 0);
    // A session whose start hook printed the block (resume, clear, compact) is not shown it again.
    await fire("cleared", "note", false);
    assert.ok(!(await fire("cleared", "prompt", true)).context.includes(RESUME_HEADER));
    // An empty start block counts as given too.
    const empty = makeEvent({ namespace: "/actor/a/project/empty/", session_id: "e" });
    await storage.ingestEvent(empty, { project_id: "e", enqueue: false });
    assert.equal((await resume(empty)).context, "");
    assert.equal(
      await storage.retrievedInSession(empty.namespace, "e", { query: SESSION_START_QUERY }),
      true,
    );
    // Without the ask (Kiro's prompts), no start block.
    assert.ok(!(await fire("kiro", "prompt", false)).context.includes(RESUME_HEADER));
  });
});

Deno.test("the start block and the first prompt's block fit one hook's output, whole", async () => {
  await withStorage(async (storage) => {
    const long = "the parser keeps failing on this input because ".repeat(30);
    const records = Array.from(
      { length: 16 },
      (_, i) => makeRecord({ title: `parser fix ${i}`, summary: `${long} (${i})` }),
    );
    for (const r of records) await storage.putRecord(r);
    const resume = createResumeAssembler({ storage, tokenBudget: 20_000 });
    const retrieve = withSessionStart(
      createAssembler({ storage, budgetMs: 2000, limit: 12, tokenBudget: 20_000 }),
      { resume, storage },
    );
    const event = makeEvent({
      namespace: records[0].namespace,
      session_id: "big",
      kind: "prompt",
      body: { type: "text", content: "parser fix" },
    });
    await storage.ingestEvent(event, { project_id: "p", enqueue: false });
    const both = await retrieve(event, { sessionStart: true });
    assert.ok(both.context.startsWith(RESUME_HEADER));
    assert.ok(both.records.length > 5, "the prompt's block has records too");
    const printed = hookStdout([both.context]);
    assert.ok(!printed.includes(OUTPUT_CUT_MARKER), "nothing cut off by the output limit");
    assert.ok(new TextEncoder().encode(printed).length <= MAX_HOOK_OUTPUT_BYTES);
  });
});

Deno.test("injected blocks: no lifecycle noise, paths relative to the project, resume leads with the last work", async () => {
  await withStorage(async (storage) => {
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 9, minute)).toISOString();
    // What older versions left behind: a record made of "session ended (other)", newest of all.
    const junk = makeRecord({
      title: "session ended (other)",
      summary: "session ended (other)",
      observation_type: "session_summary",
      created_at: at(30),
    });
    const oldSummary = makeRecord({
      title: "Set up the cart module",
      summary: "Created /srv/shop/src/cart/total.ts with a total() that sums line items.",
      observation_type: "session_summary",
      created_at: at(1),
    });
    const lastWork = makeRecord({
      title: "Command failed: npm test",
      summary: "`npm test` failed: AssertionError: expected 3 to equal 4 in " +
        "/srv/shop/test/cart/total.test.ts",
      facts: ["edited /srv/shop/src/cart/total.ts", "see /srv/shop2/README.md"],
      observation_type: "error",
      created_at: at(20),
    });
    for (const r of [junk, oldSummary, lastWork]) await storage.putRecord(r);
    const event = (kind: "note" | "prompt", content: string) =>
      makeEvent({
        namespace: junk.namespace,
        session_id: "s-inject",
        kind,
        body: { type: "text", content },
        source: {
          surface: "kiro-cli",
          version: "0.1.0",
          client_id: "h",
          project_path: "/srv/shop",
        },
      });
    const resume = await createResumeAssembler({ storage, tokenBudget: 2000 })(
      event("note", "session started"),
    );
    assert.doesNotMatch(resume.context, /session ended/);
    assert.ok(!resume.records.includes(junk.record_id));
    assert.deepEqual(resume.records, [lastWork.record_id, oldSummary.record_id]);
    const firstTitle = resume.context.split("\n").find((l) => l.startsWith("### "));
    assert.equal(firstTitle, "### Command failed: npm test");
    assert.match(resume.context, /in test\/cart\/total\.test\.ts/);
    assert.match(resume.context, /- edited src\/cart\/total\.ts/);
    // A sibling folder is not the project.
    assert.match(resume.context, /\/srv\/shop2\/README\.md/);
    assert.doesNotMatch(resume.context, /\/srv\/shop\//);
    const retrieve = createAssembler({ storage, budgetMs: 2000, limit: 5, tokenBudget: 2000 });
    const answer = await retrieve(event("prompt", "session ended other npm test cart total"));
    assert.doesNotMatch(answer.context, /session ended/);
    assert.doesNotMatch(answer.context, /\/srv\/shop\//);
  });
});

Deno.test("the resume block shows a summary that similar sessions repeated once, and still the three newest distinct ones", async () => {
  await withStorage(async (storage) => {
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 10, minute)).toISOString();
    const summary = (title: string, minute: number) =>
      makeRecord({
        title,
        summary: `${title} (summary)`,
        observation_type: "session_summary",
        created_at: at(minute),
      });
    // Ten short sessions that each printed "hi", after two earlier pieces of real work.
    const older = [summary("Set up the cart module", 1), summary("Fixed the total rounding", 2)];
    const repeats = Array.from({ length: 10 }, (_, i) => summary("It printed hi.", 10 + i));
    for (const r of [...older, ...repeats]) await storage.putRecord(r);
    const resume = await createResumeAssembler({ storage, tokenBudget: 2000 })(
      makeEvent({
        namespace: older[0].namespace,
        kind: "note",
        body: { type: "text", content: "start" },
      }),
    );
    assert.equal(resume.context.split("### It printed hi.").length - 1, 1, resume.context);
    assert.deepEqual(resume.records, [
      repeats[9].record_id,
      older[1].record_id,
      older[0].record_id,
    ]);
  });
});
