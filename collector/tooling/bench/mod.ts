/**
 * `deno task bench`: runs every benchmark of the workspace in turn, each as its own process so
 * one's memory and JIT state do not colour the next, and prints their figures. Flags go to each
 * benchmark (`--quick` runs the small sizes; the agent-session ones, `claude-code`, `codex`,
 * `gemini-cli` and `copilot-cli`, take `--runs=N` and `--hogs=N`, the Claude Code one also `--mcp-only`); any other argument is a name filter (e.g. `deno task bench storage`). A
 * benchmark marked `optIn` (it needs something the workspace does not hold, such as the real
 * Claude Code client) runs only when an argument names it exactly (`deno task bench claude-code`).
 *
 * @module
 */

/** The benchmarks, in the order they run. */
export const BENCHMARKS: readonly { name: string; path: string; optIn?: boolean }[] = [
  { name: "storage", path: "core/bench/storage_bench.ts" },
  { name: "collector", path: "collector/tooling/bench/collector_bench.ts" },
  { name: "shims", path: "collector/tooling/bench/shim_bench.ts" },
  { name: "embedding", path: "collector/tooling/bench/embedding_bench.ts" },
  { name: "backfill", path: "collector/tooling/quality/backfill_bench.ts" },
  { name: "memory", path: "collector/tooling/quality/memory_bench.ts" },
  { name: "hybrid", path: "collector/tooling/bench/hybrid_bench.ts" },
  { name: "quality", path: "collector/tooling/quality/real_bench.ts" },
  { name: "quality-synthetic", path: "collector/tooling/quality/eval.ts" },
  { name: "claude-code", path: "collector/tooling/bench/claude_code_bench.ts", optIn: true },
  { name: "codex", path: "collector/tooling/bench/codex_bench.ts", optIn: true },
  { name: "gemini-cli", path: "collector/tooling/bench/gemini_cli_bench.ts", optIn: true },
  { name: "copilot-cli", path: "collector/tooling/bench/copilot_cli_bench.ts", optIn: true },
  { name: "team", path: "collector/tooling/bench/team_bench.ts", optIn: true },
  { name: "acp-start", path: "collector/tooling/bench/acp_start_bench.ts", optIn: true },
];

const ROOT = new URL("../../../", import.meta.url);

function exists(path: string): boolean {
  try {
    Deno.statSync(new URL(path, ROOT));
    return true;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  // Flags go to every benchmark run (`--quick`, and the agent-session ones' `--runs=N`,
  // `--hogs=N`, `--mcp-only`): a flag dropped here would silently measure something else.
  const flags = Deno.args.filter((a) => a.startsWith("--"));
  const filters = Deno.args.filter((a) => !a.startsWith("--"));
  let failed = 0;
  for (const bench of BENCHMARKS) {
    if (filters.length > 0 && !filters.some((f) => bench.name.includes(f))) continue;
    if (bench.optIn && !filters.includes(bench.name)) continue;
    if (!exists(bench.path)) continue;
    console.log(`\n== ${bench.name} (${bench.path}) ==`);
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(bench.path, ROOT).pathname, ...flags],
      cwd: ROOT.pathname,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) {
      failed++;
      console.log(`bench ${bench.name} failed with exit code ${code}`);
    }
  }
  Deno.exit(failed === 0 ? 0 : 1);
}
