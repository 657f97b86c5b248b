/**
 * `deno task bench`: runs every benchmark of the workspace in turn, each as its own process so
 * one's memory and JIT state do not colour the next, and prints their figures. Flags go to each
 * benchmark (`--quick` runs the small sizes; the agent-session ones, `claude-code`, `codex`,
 * `gemini-cli` and `copilot-cli`, take `--runs=N` and `--hogs=N`, the Claude Code one also
 * `--mcp-only`); any other argument is a name filter (e.g. `deno task bench storage`), and a
 * filter that names no benchmark is refused (`--help` lists them). A
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

/** The flags `deno task bench` hands to the benchmarks, as `--help` lists them. */
const FLAGS = [
  "--quick                the small sizes",
  "--runs=N, --warmup=N   rounds of the agent-session benchmarks (claude-code, codex, gemini-cli,",
  "                       copilot-cli)",
  "--setups=KEY,...       only those setups beside the one without kiro-learn (agent sessions)",
  "--hogs=N               N busy processes throughout (agent sessions, acp-start)",
  "--mcp-only, --tools=N  the MCP connection alone; N tool calls a session (claude-code)",
  "--out=PATH             where the figures go (one benchmark at a time)",
];

/** What `deno task bench --help` prints: the benchmarks, which need naming, and the flags. */
export function benchUsage(): string {
  const width = Math.max(...BENCHMARKS.map((b) => b.name.length));
  return [
    "usage: deno task bench [NAME ...] [--flag ...]",
    "",
    "Runs every benchmark whose name contains a NAME (all of them without one); those marked",
    "opt-in need something the workspace does not hold and run only when named exactly.",
    "",
    ...BENCHMARKS.map((b) => `  ${b.name.padEnd(width)}  ${b.path}${b.optIn ? "  (opt-in)" : ""}`),
    "",
    "Flags go to every benchmark that runs:",
    ...FLAGS.map((f) => `  ${f}`),
  ].join("\n");
}

/** What a `deno task bench` command line asks for: the benchmarks to run and their flags. */
export type BenchSelection =
  | { help: true }
  | { help: false; chosen: typeof BENCHMARKS; flags: string[] }
  | { help: false; error: string };

/** Reads a `deno task bench` command line (see {@linkcode benchUsage}). */
export function selectBenchmarks(args: readonly string[]): BenchSelection {
  if (args.includes("--help") || args.includes("-h")) return { help: true };
  // Flags go to every benchmark run: a flag dropped here would silently measure something else.
  const flags = args.filter((a) => a.startsWith("--"));
  const filters = args.filter((a) => !a.startsWith("--"));
  const unknown = filters.filter((f) => !BENCHMARKS.some((b) => b.name.includes(f)));
  if (unknown.length > 0) {
    return {
      help: false,
      error: `no benchmark is named like ${unknown.map((f) => `"${f}"`).join(", ")}: ` +
        `the names are ${BENCHMARKS.map((b) => b.name).join(", ")} (deno task bench --help)`,
    };
  }
  const chosen = BENCHMARKS.filter((bench) =>
    (filters.length === 0 || filters.some((f) => bench.name.includes(f))) &&
    (!bench.optIn || filters.includes(bench.name))
  );
  return { help: false, chosen, flags };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(new URL(path, ROOT));
    return true;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const selection = selectBenchmarks(Deno.args);
  if (selection.help) {
    console.log(benchUsage());
    Deno.exit(0);
  }
  if ("error" in selection) {
    console.error(`deno task bench: ${selection.error}`);
    Deno.exit(2);
  }
  let failed = 0;
  for (const bench of selection.chosen) {
    if (!exists(bench.path)) continue;
    console.log(`\n== ${bench.name} (${bench.path}) ==`);
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(bench.path, ROOT).pathname, ...selection.flags],
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
