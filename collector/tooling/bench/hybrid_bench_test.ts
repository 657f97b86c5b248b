import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runDenoScript } from "@kiro-learn/core/testing";
import { type HybridBenchReport, parseBenchArgs } from "./hybrid_bench.ts";

const SCRIPT = fileURLToPath(new URL("./hybrid_bench.ts", import.meta.url));
const REPO_ROOT = join(dirname(SCRIPT), "..", "..", "..");

Deno.test("parseBenchArgs: quick and full sizes, --out, unknown arguments rejected", () => {
  const full = parseBenchArgs([]);
  assert.deepEqual(full.sizes, [10_000, 100_000]);
  assert.equal(full.out, join(REPO_ROOT, ".bench", "hybrid.json"));
  const quick = parseBenchArgs(["--quick", "--out=/tmp/h.json"]);
  assert.deepEqual(quick.sizes, [1_000, 5_000]);
  assert.equal(quick.out, "/tmp/h.json");
  assert.throws(() => parseBenchArgs(["--fast"]));
});

Deno.test("hybrid bench --quick runs, prints a line per size, writes JSON", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "hybrid.json");
    const { code, stdout: text, stderr } = await runDenoScript(SCRIPT, {
      args: ["--quick", `--out=${out}`],
      cwd: REPO_ROOT,
    });
    assert.equal(code, 0, `${text}\n${stderr}`);
    assert.match(text, /^hybrid: 1k records +p50 \S+ ms +p95 \S+ ms/m);
    assert.match(text, /^hybrid: 5k records +p50 \S+ ms +p95 \S+ ms/m);
    assert.match(text, /^ranked with the term space: p50 \S+ ms +p95 \S+ ms +\(trained in /m);
    // Figures are not asserted (machines differ); shape and the fusion path are.
    const report: HybridBenchReport = JSON.parse(await Deno.readTextFile(out));
    assert.equal(report.mode, "quick");
    assert.deepEqual(report.sizes.map((s) => s.records), [1_000, 5_000]);
    for (const size of report.sizes) {
      assert.equal(size.total_ms.count, 50);
      assert.equal(size.fused, 50, "every search took the fusion path");
      assert.equal(size.ranked_space_ms.count, 50);
      assert.ok(size.term_space_terms > 0, "the space was trained and searched with");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
