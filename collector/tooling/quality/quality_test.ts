import assert from "node:assert/strict";
import { runDenoScript } from "@kiro-learn/core/testing";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryRecordSchema } from "@kiro-learn/core/schemas";
import { loadQualitySet, LOW_OVERLAP, toMemoryRecords, wordOverlap } from "./dataset.ts";
import { parseEvalArgs, type QualityReport, score } from "./eval.ts";
import { DISTRACTORS, generateDistractors } from "./generate.ts";

const EVAL = fileURLToPath(new URL("./eval.ts", import.meta.url));

Deno.test("the set: ≥ 50 queries over ≥ 500 valid records, every label resolves", async () => {
  const set = await loadQualitySet();
  const answerable = set.queries.filter((q) => q.relevant.length > 0);
  assert.ok(answerable.length >= 50, `${answerable.length} answerable queries`);
  assert.ok(set.records.length >= 500, `${set.records.length} records`);
  assert.ok(set.queries.some((q) => q.relevant.length === 0), "queries without an answer");
  const keys = set.records.map((r) => r.key);
  assert.equal(new Set(keys).size, keys.length, "record keys are unique");
  const ids = set.queries.map((q) => q.id);
  assert.equal(new Set(ids).size, ids.length, "query ids are unique");
  const known = new Set(keys);
  for (const q of answerable) {
    for (const key of q.relevant) assert.ok(known.has(key), `${q.id} → ${key}`);
  }
  const records = toMemoryRecords(set.records);
  for (const record of records.values()) MemoryRecordSchema.parse(record);
  const recordIds = [...records.values()].map((r) => r.record_id);
  assert.equal(new Set(recordIds).size, recordIds.length, "record ids are unique");
  // Every hand-written target is some query's answer.
  for (const target of set.targets) {
    assert.ok(answerable.some((q) => q.relevant.includes(target)), `${target} is never asked for`);
  }
});

Deno.test("the set: many queries share few words with their answer", async () => {
  const set = await loadQualitySet();
  const answerable = set.queries.filter((q) => q.relevant.length > 0);
  const low = answerable.filter((q) =>
    Math.max(
      ...q.relevant.map((k) => wordOverlap(q.query, set.records.find((r) => r.key === k)!)),
    ) <=
      LOW_OVERLAP
  );
  assert.ok(
    low.length / answerable.length >= 0.4,
    `${low.length}/${answerable.length} low-overlap`,
  );
});

Deno.test("the template distractors are exactly what generate.ts writes", async () => {
  const text = await Deno.readTextFile(new URL("./data/distractors.ndjson", import.meta.url));
  const expected = generateDistractors(DISTRACTORS.count, { seed: DISTRACTORS.seed })
    .map((r) => JSON.stringify(r)).join("\n") + "\n";
  assert.equal(text, expected, "run deno run -A collector/tooling/quality/generate.ts");
});

Deno.test("score: recall@5 and MRR", () => {
  const queries = [
    { id: "a", query: "", relevant: ["x"] },
    { id: "b", query: "", relevant: ["y", "z"] },
    { id: "c", query: "", relevant: [] },
  ];
  const rankings = new Map([["a", ["p", "x"]], ["b", ["z", "q", "r", "s", "t", "y"]], ["c", [
    "x",
  ]]]);
  const s = score(queries, rankings);
  assert.equal(s.queries, 2);
  assert.equal(s.recall_at_5, (1 + 0.5) / 2);
  assert.equal(s.mrr, (0.5 + 1) / 2);
  assert.throws(() => parseEvalArgs(["--fast"]));
  assert.equal(parseEvalArgs(["--quick"]).mode, "quick");
  assert.equal(parseEvalArgs(["--quick"]).sweep, false);
  assert.equal(parseEvalArgs([]).sweep, true);
  assert.equal(parseEvalArgs(["--no-sweep"]).sweep, false);
});

Deno.test("eval --quick runs, prints the summary line and writes JSON", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "quality.json");
    const { code, stdout: text, stderr } = await runDenoScript(EVAL, {
      args: ["--quick", `--out=${out}`],
      cwd: Deno.cwd(),
    });
    assert.equal(code, 0, `${text}\n${stderr}`);
    assert.match(
      text,
      /^quality: lexical recall@5 \d\.\d\d MRR \d\.\d\d \| hybrid (recall@5 \d\.\d\d MRR \d\.\d\d|n\/a .*) \(\d+ queries, \d+ records\)$/m,
    );
    const report: QualityReport = JSON.parse(await Deno.readTextFile(out));
    assert.equal(report.mode, "quick");
    assert.ok(report.answerable >= 50);
    // The use-lite embedder ships in node_modules, so hybrid scores are always there: a missing
    // embedder is a broken install, not a reason to check less.
    assert.ok(
      "model" in report.embedder,
      `the embedder did not load (${JSON.stringify(report.embedder)}): run deno install`,
    );
    assert.ok(report.hybrid && report.hybrid_low_overlap, "no hybrid scores in the report");
    assert.match(text, /\| hybrid recall@5 \d\.\d\d MRR \d\.\d\d /);
    // Hybrid must beat lexical (measured +0.07 recall@5, +0.06 MRR on this subset), and must
    // win where words differ.
    assert.ok(
      report.hybrid.recall_at_5 >= report.lexical.recall_at_5 + 0.04,
      `${JSON.stringify(report.hybrid)} vs ${JSON.stringify(report.lexical)}`,
    );
    assert.ok(report.hybrid.mrr > report.lexical.mrr, JSON.stringify(report.hybrid));
    assert.ok(report.hybrid_low_overlap.recall_at_5 > report.lexical_low_overlap.recall_at_5);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the full set: hybrid beats lexical by a clear margin, also on the held-out half", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "quality.json");
    const { code, stdout: text, stderr } = await runDenoScript(EVAL, {
      args: ["--no-sweep", `--out=${out}`],
      cwd: Deno.cwd(),
    });
    assert.equal(code, 0, `${text}\n${stderr}`);
    const report: QualityReport = JSON.parse(await Deno.readTextFile(out));
    assert.equal(report.mode, "full");
    assert.ok("model" in report.embedder, JSON.stringify(report.embedder));
    assert.ok(report.hybrid && report.hybrid_split, "no hybrid scores in the report");
    const why = text;
    // Measured with use-lite on records embedded from their first 120 chars (input version 4):
    // recall@5 0.47 → 0.54, MRR 0.40 → 0.44; on the odd-numbered queries, which no setting was
    // chosen on, recall@5 0.50 → 0.56. (At 200 chars the lead was +0.09; the real set, not this
    // one, chose the cut: `MAX_EMBEDDING_INPUT`.) The margins leave about one query of slack.
    assert.ok(report.hybrid.recall_at_5 >= report.lexical.recall_at_5 + 0.06, why);
    assert.ok(report.hybrid.mrr >= report.lexical.mrr + 0.02, why);
    assert.ok(
      report.hybrid_split.held_out.recall_at_5 >=
        report.lexical_split.held_out.recall_at_5 + 0.04,
      why,
    );
    assert.ok(report.hybrid_split.held_out.mrr > report.lexical_split.held_out.mrr, why);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
