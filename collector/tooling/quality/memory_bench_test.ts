import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeRecord, runDenoScript } from "@kiro-learn/core/testing";
import { unitOrZero } from "@kiro-learn/core/search";
import type { Embedder } from "../../daemon/embedding/mod.ts";
import { cycleRecords, parseMemoryArgs, quantizationOverlap } from "./memory_bench.ts";

const SCRIPT = fileURLToPath(new URL("./memory_bench.ts", import.meta.url));
const REPO_ROOT = join(dirname(SCRIPT), "..", "..", "..");

Deno.test("parseMemoryArgs: full and quick sizes, flags, unknown or bad arguments", () => {
  const full = parseMemoryArgs([]);
  assert.equal(full.mode, "full");
  assert.equal(full.records, 100_000);
  assert.equal(full.out, join(REPO_ROOT, ".bench", "memory.json"));
  const quick = parseMemoryArgs([
    "--quick",
    "--records=10",
    "--vectors=3",
    "--data=/d",
    "--out=/o",
  ]);
  assert.deepEqual(quick, {
    mode: "quick",
    records: 10,
    vectors: 3,
    data: "/d",
    out: "/o",
    quietMs: 3_000,
  });
  assert.equal(full.quietMs, 35_000, "a full run reads idle memory after V8's idle GC");
  assert.throws(() => parseMemoryArgs(["--records=0"]), /records must be a whole number/);
  assert.throws(() => parseMemoryArgs(["--fast"]), /unknown argument --fast/);
});

Deno.test("cycleRecords: the originals first, then copies with fresh ids", () => {
  const source = [makeRecord(), makeRecord()];
  const out = cycleRecords(source, 5);
  assert.equal(out.length, 5);
  assert.deepEqual(out.slice(0, 2), source);
  assert.equal(new Set(out.map((r) => r.record_id)).size, 5);
  assert.equal(out[4].title, source[0].title);
  assert.equal(out[3].namespace, source[1].namespace);
});

Deno.test("quantizationOverlap: identical rankings score 1; the errors are int8 rounding", async () => {
  const dim = 64;
  let seed = 3;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
  const rows = Array.from({ length: 40 }, () => ({
    record: makeRecord(),
    vector: unitOrZero(Float32Array.from({ length: dim }, random)),
  }));
  // Queries equal to stored vectors: both precisions rank that record first.
  const embedder: Embedder = {
    model_id: "test",
    dim,
    embed: (texts) => Promise.resolve(texts.map((t) => rows[Number(t)].vector)),
    close: () => Promise.resolve(),
  };
  const queries = rows.slice(0, 8).map((r, i) => ({
    query_id: `q${i}`,
    query: String(i),
    namespace: r.record.namespace,
    relevant: [r.record.record_id],
    repo: "test/test",
  }));
  const f = await quantizationOverlap(rows, { queries, embedder });
  assert.equal(f.queries, 8);
  assert.equal(f.records, 40);
  assert.equal(f.top1_same, 1);
  assert.ok(f.top10_overlap > 0.8 && f.top10_overlap <= 1, String(f.top10_overlap));
  assert.ok(f.max_similarity_error > 0 && f.max_similarity_error < 0.02);
});

Deno.test("memory bench --quick runs on a small set, prints its lines, writes JSON", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const records = Array.from(
      { length: 12 },
      (_, i) => JSON.stringify({ ...makeRecord({ title: `Record number ${i} about parsing` }) }),
    );
    await Deno.writeTextFile(join(dir, "records.jsonl"), records.join("\n") + "\n");
    const first = JSON.parse(records[0]);
    await Deno.writeTextFile(
      join(dir, "queries.jsonl"),
      JSON.stringify({
        query_id: "q1",
        query: "parsing",
        namespace: first.namespace,
        relevant: [first.record_id],
        repo: "test/test",
      }) + "\n",
    );
    const out = join(dir, "memory.json");
    const { code, stdout: text, stderr } = await runDenoScript(SCRIPT, {
      args: ["--quick", "--records=30", "--vectors=6", `--data=${dir}`, `--out=${out}`],
      cwd: REPO_ROOT,
    });
    assert.equal(code, 0, `exit ${code}\n${text}\n${stderr}`);
    // Figures are not asserted (machines differ); the lines and the report's shape are.
    assert.match(text, /^memory: 30 records \(1 namespaces\), use-lite loaded: idle RSS \d+ MiB/m);
    assert.match(text, /^memory: bits index vs float32 on 6 real records, 1 real queries/m);
    const report = JSON.parse(await Deno.readTextFile(out));
    assert.equal(report.records, 30);
    assert.equal(report.index.vectors, 30);
    assert.ok(report.rss_index_loaded_kib > 0);
    assert.deepEqual(report.phases.map((p: { moment: string }) => p.moment), [
      "embedder loaded, before any search",
      "term spaces trained (idle)",
      "a query embedded, no vectors held",
      "vectors loaded too",
      "vectors unloaded after embedding.vectorIdleMs",
    ]);
    assert.match(text, /^memory: vectors unloaded after embedding\.vectorIdleMs: RSS \d+ MiB/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
