import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runDenoScript } from "@kiro-learn/core/testing";
import { benchTexts, parseBenchArgs } from "./embedding_bench.ts";

const SCRIPT = fileURLToPath(new URL("./embedding_bench.ts", import.meta.url));
const REPO_ROOT = join(dirname(SCRIPT), "..", "..", "..");

Deno.test("parseBenchArgs: quick and full sizes, --out, --onnx-model, unknown arguments", () => {
  const full = parseBenchArgs([]);
  assert.equal(full.mode, "full");
  assert.deepEqual(full.indexSizes, [10_000, 100_000]);
  assert.equal(full.out, join(REPO_ROOT, ".bench", "embedding.json"));
  const quick = parseBenchArgs(["--quick", "--out=/tmp/e.json", "--onnx-model=/m"]);
  assert.equal(quick.mode, "quick");
  assert.equal(quick.out, "/tmp/e.json");
  assert.equal(quick.onnxModel, "/m");
  assert.throws(() => parseBenchArgs(["--fast"]), /unknown argument --fast/);
});

Deno.test("benchTexts: the asked number of texts, about the asked length, deterministic", () => {
  const short = benchTexts(5, 100, 1);
  assert.equal(short.length, 5);
  for (const t of short) assert.equal(t.length, 100);
  assert.deepEqual(benchTexts(5, 100, 1), short);
  for (const t of benchTexts(3, 1_000, 2)) assert.equal(t.length, 1_000);
});

Deno.test("embedding bench --quick runs, prints every figure line, writes JSON", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "embedding.json");
    // No real model in an empty data dir: the onnx line must say it is not representative.
    const { code, stdout: text, stderr } = await runDenoScript(SCRIPT, {
      args: ["--quick", `--out=${out}`],
      cwd: REPO_ROOT,
      env: { KIRO_LEARN_HOME: dir },
    });
    assert.equal(code, 0, `exit ${code}\n${text}\n${stderr}`);
    // Figures are not asserted (machines differ); the lines and the report's shape are.
    assert.match(text, /^embedding: use-lite use-lite@0\.2\.0 +short ~100 chars \S+\/s +long/m);
    assert.match(text, /^embedding: onnx .*NOT representative\)$/m);
    assert.match(text, /^embedding: vector search 10k × 384-d \(k 40\) +p50 \S+ ms +p95/m);
    assert.match(text, /^embedding: idle daemon RSS with use-lite loaded \d+ MiB/m);
    const report = JSON.parse(await Deno.readTextFile(out));
    assert.equal(report.mode, "quick");
    assert.deepEqual(report.backends.map((b: { backend: string }) => b.backend), [
      "use-lite",
      "onnx",
    ]);
    assert.equal(report.backends[1].representative, false);
    assert.equal(report.vector_search.length, 4);
    assert.ok(report.idle_rss[0].rss_kib > 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
