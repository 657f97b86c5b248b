import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runDenoScript } from "../testing/mod.ts";
import { parseBenchArgs } from "./storage_bench.ts";

const SCRIPT = fileURLToPath(new URL("./storage_bench.ts", import.meta.url));
const REPO_ROOT = join(dirname(SCRIPT), "..", "..");

Deno.test("parseBenchArgs: quick and full sizes, --out, unknown arguments rejected", () => {
  const full = parseBenchArgs([]);
  assert.equal(full.mode, "full");
  assert.equal(full.events, 20_000);
  assert.deepEqual(full.recordSizes, [10_000, 100_000]);
  assert.equal(full.out, join(REPO_ROOT, ".bench", "storage.json"));
  const quick = parseBenchArgs(["--quick", "--out=/tmp/x.json"]);
  assert.equal(quick.mode, "quick");
  assert.equal(quick.events, 2_000);
  assert.deepEqual(quick.recordSizes, [1_000, 5_000]);
  assert.equal(quick.out, "/tmp/x.json");
  assert.equal(parseBenchArgs(["--out", "/tmp/y.json"]).out, "/tmp/y.json");
  assert.throws(() => parseBenchArgs(["--fast"]), /unknown argument --fast/);
});

Deno.test("storage bench --quick runs, prints the ingest and search lines, writes JSON", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "storage.json");
    const { code, stdout: text, stderr } = await runDenoScript(SCRIPT, {
      args: ["--quick", `--out=${out}`],
      cwd: REPO_ROOT,
    });
    assert.equal(code, 0, `exit ${code}\n${text}\n${stderr}`);
    assert.match(text, /^storage: ingest 2000 events +[\d,]+ ev\/s +p50 \S+ ms +p99 \S+ ms/m);
    assert.match(text, /^storage: lexical search 1k +p50 \S+ ms +p95 \S+ ms +max \S+ ms/m);
    assert.match(text, /^storage: lexical search 5k +p50 \S+ ms +p95 \S+ ms +max \S+ ms/m);
    assert.match(text, /^storage: seed 5k records /m);
    // Figures are not asserted (machines differ); shape and isolation are.
    const report = JSON.parse(await Deno.readTextFile(out));
    assert.equal(report.mode, "quick");
    assert.equal(report.ingest.events, 2000);
    assert.equal(report.ingest.queue_rows, 2000);
    assert.deepEqual(
      report.search.map((s: { namespace_records: number }) => s.namespace_records),
      [1000, 5000, 50],
    );
    for (const search of report.search) {
      assert.equal(search.leaked_hits, 0);
      assert.equal(search.latency_ms.count, 200);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
