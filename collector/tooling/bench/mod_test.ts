import assert from "node:assert/strict";
import { BENCHMARKS, benchUsage, selectBenchmarks } from "./mod.ts";

const names = (args: string[]) => {
  const selection = selectBenchmarks(args);
  assert.ok(!selection.help && !("error" in selection), JSON.stringify(selection));
  return selection.chosen.map((b) => b.name);
};

Deno.test("bench: --help lists every benchmark and runs none", () => {
  assert.deepEqual(selectBenchmarks(["--help"]), { help: true });
  assert.deepEqual(selectBenchmarks(["codex", "-h"]), { help: true });
  const usage = benchUsage();
  for (const bench of BENCHMARKS) {
    assert.match(usage, new RegExp(`\\n  ${bench.name} +${bench.path}`));
  }
  assert.match(usage, /gemini-cli +\S+ +\(opt-in\)/);
  assert.doesNotMatch(usage, /storage +\S+ +\(opt-in\)/);
});

Deno.test("bench: names filter, opt-in benchmarks only when named exactly, flags go along", () => {
  assert.deepEqual(names([]), BENCHMARKS.filter((b) => !b.optIn).map((b) => b.name));
  assert.deepEqual(names(["quality"]), ["quality", "quality-synthetic"]);
  assert.deepEqual(names(["code"]), [], "claude-code and codex are opt-in");
  assert.deepEqual(names(["codex", "storage"]), ["storage", "codex"]);
  const selection = selectBenchmarks(["gemini-cli", "--runs=40", "--setups=with_kiro_learn"]);
  assert.ok(!selection.help && !("error" in selection));
  assert.deepEqual(selection.flags, ["--runs=40", "--setups=with_kiro_learn"]);
});

Deno.test("bench: a name that matches no benchmark is refused with the names", () => {
  const selection = selectBenchmarks(["gemini", "clade-code"]);
  assert.ok("error" in selection);
  assert.match(selection.error, /no benchmark is named like "clade-code": the names are storage, /);
  assert.doesNotMatch(selection.error, /"gemini"/);
});
