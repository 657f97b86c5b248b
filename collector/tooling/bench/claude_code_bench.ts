/**
 * Claude Code overhead benchmark: what kiro-learn's hooks add to a real session, as a user pays
 * it. Times whole `claude -p` runs of the real client (the version `prepare.ts` pins and
 * installs), offline against the scripted model on loopback, each session one prompt, one Bash
 * call (`echo hi`) and an answer: in a HOME without kiro-learn, and in a HOME where kiro-learn is
 * installed by its own installer with a running collector (five hooks fire per session:
 * SessionStart, UserPromptSubmit, PostToolUse, Stop, SessionEnd, each its `sh` launcher posting the
 * raw payload over the collector's Unix socket with curl, or running the shim when that fails), and
 * in a third HOME with the same installation minus its MCP server entry: the hooks' share alone;
 * and in a fourth like the third whose hooks all run the shim (`deno run`, the path before the
 * fast path). Runs rotate among the four so drift on a shared machine hits all alike.
 *
 * Not part of the default `deno task bench` run (it needs the client): run it with
 * `deno task bench claude-code`, or `deno run -A collector/tooling/bench/claude_code_bench.ts
 * [--quick] [--runs=N] [--out=<path>]`. Figures go to stdout and to `.bench/claude-code.json`.
 *
 * @module
 */
import { formatMs, summarize } from "@kiro-learn/core/testing";
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import {
  CLAUDE_CODE_VERSION,
  claudeSandbox,
  outputText,
  startScriptedModel,
  toolThenText,
} from "../testing/mod.ts";

const quick = Deno.args.includes("--quick");
const RUNS = Number(Deno.args.find((a) => a.startsWith("--runs="))?.slice(7) ?? (quick ? 5 : 20));
const WARMUP = 1;
const out = Deno.args.find((a) => a.startsWith("--out="))?.slice(6) ??
  new URL(`../../../.bench/claude-code${quick ? "-quick" : ""}.json`, import.meta.url).pathname;
const ANSWER = "It printed hi.";

/** One measured configuration. */
interface Figure {
  runs: number;
  median_ms: number;
  p95_ms: number;
  min_ms: number;
  max_ms: number;
}

function figure(times: number[]): Figure {
  const s = summarize(times);
  return { runs: times.length, median_ms: s.p50, p95_ms: s.p95, min_ms: s.min, max_ms: s.max };
}

function signed(ms: number): string {
  return ms < 0 ? `-${formatMs(-ms)}` : `+${formatMs(ms)}`;
}

function line(label: string, f: Figure): string {
  return `claude-code: ${label.padEnd(24)} median ${formatMs(f.median_ms).padStart(8)}  p95 ${
    formatMs(f.p95_ms).padStart(8)
  }  (min ${formatMs(f.min_ms)}, max ${formatMs(f.max_ms)}, ${f.runs} runs)`;
}

/** Runs the benchmark; returns the figures written to `out`. */
export async function benchClaudeCode(): Promise<Record<string, unknown>> {
  if (!Number.isInteger(RUNS) || RUNS < 1) {
    throw new Error(`--runs must be a positive integer, got ${RUNS}: pass e.g. --runs=20`);
  }
  await using model = startScriptedModel(
    toolThenText({ name: "Bash", input: { command: "echo hi", description: "Say hi" } }, ANSWER),
  );
  await using bare = await claudeSandbox();
  await using hooked = await claudeSandbox();
  await using hooksOnly = await claudeSandbox();
  await using shimOnly = await claudeSandbox();
  const bareProject = await bare.project("app");
  const hookedProject = await hooked.project("app");
  const hooksOnlyProject = await hooksOnly.project("app");
  const shimOnlyProject = await shimOnly.project("app");
  const installed = [
    [hooked, hookedProject],
    [hooksOnly, hooksOnlyProject],
    [shimOnly, shimOnlyProject],
  ] as const;
  for (const [box, project] of installed) {
    for (const args of [["install"], ["start"]]) {
      const done = await box.kiroLearn(args, project);
      if (done.code !== 0) {
        throw new Error(
          `kiro-learn ${args[0]} failed in the benchmark's sandbox: ${outputText(done)}`,
        );
      }
    }
  }
  // The hooks' share alone: the same installation without its MCP server entry; and the same
  // again with every hook running the shim (`deno run`), as before the launchers' fast path: with
  // the header file gone, the launcher execs the shim at once.
  for (const box of [hooksOnly, shimOnly]) {
    const userConfig = `${box.home}/.claude.json`;
    const config = JSON.parse(await Deno.readTextFile(userConfig));
    if (config.mcpServers?.[MCP_SERVER_NAME] === undefined) {
      throw new Error(`install wrote no ${MCP_SERVER_NAME} entry into ${userConfig}`);
    }
    delete config.mcpServers[MCP_SERVER_NAME];
    await Deno.writeTextFile(userConfig, JSON.stringify(config, null, 2));
  }
  await Deno.remove(`${shimOnly.dataDir}/hook-auth`);
  const session = async (box: typeof bare, cwd: string): Promise<number> => {
    const started = performance.now();
    const run = await box.claude("Run echo hi and tell me what it printed", {
      cwd,
      modelUrl: model.url,
    });
    const ms = performance.now() - started;
    if (run.code !== 0 || run.result !== ANSWER) {
      throw new Error(
        `a claude -p session failed (exit ${run.code}, result ${JSON.stringify(run.result)}): ` +
          run.stderr + run.stdout.slice(0, 2000),
      );
    }
    return ms;
  };
  const without: number[] = [];
  const withHooks: number[] = [];
  const onlyHooks: number[] = [];
  const onlyShims: number[] = [];
  const configs = [
    { times: without, box: bare, cwd: bareProject },
    { times: withHooks, box: hooked, cwd: hookedProject },
    { times: onlyHooks, box: hooksOnly, cwd: hooksOnlyProject },
    { times: onlyShims, box: shimOnly, cwd: shimOnlyProject },
  ];
  for (let i = -WARMUP; i < RUNS; i++) {
    // Rotate which goes first, so none always runs on a machine another just warmed.
    for (let k = 0; k < configs.length; k++) {
      const { times, box, cwd } = configs[(k + i + WARMUP) % configs.length];
      const ms = await session(box, cwd);
      if (i >= 0) times.push(ms);
    }
  }
  // The hooks must have run: every hooked session's prompt reached the collector. And how many
  // hook firings each collector answered on the launchers' fast path (its Unix socket), at what
  // cost to it: the rest ran the shim.
  const hookFigures: Record<string, unknown>[] = [];
  for (const box of [hooked, hooksOnly, shimOnly]) {
    const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
    const headers = { authorization: `Bearer ${token}` };
    const res = await fetch(`http://127.0.0.1:${box.port}/v1/events?limit=1000`, { headers });
    const prompts = ((await res.json()).items as { kind: string }[])
      .filter((e) => e.kind === "prompt").length;
    if (prompts !== RUNS + WARMUP) {
      throw new Error(
        `the collector holds ${prompts} prompts for ${RUNS + WARMUP} hooked sessions: the hooks ` +
          "did not all run, so the figures would not measure them; check `kiro-learn doctor`",
      );
    }
    const stats = await fetch(`http://127.0.0.1:${box.port}/v1/stats`, { headers });
    const hook = (await stats.json()).latency?.hook as
      | { count: number; p50: number; p95: number }
      | undefined;
    console.log(
      `claude-code: ${prompts} hooked sessions, each prompt recorded; fast-path hook firings ${
        hook?.count ?? 0
      } (collector side p50 ${hook?.p50 ?? "-"} ms, p95 ${hook?.p95 ?? "-"} ms)`,
    );
    hookFigures.push({ prompts, fast_path_hooks: hook ?? null });
  }
  const a = figure(without);
  const b = figure(withHooks);
  const h = figure(onlyHooks);
  const sh = figure(onlyShims);
  console.log(line("without kiro-learn", a));
  console.log(line("hooks, shim only (no MCP)", sh));
  console.log(line("hooks only (no MCP)", h));
  console.log(line("hooks + MCP server", b));
  // Besides the difference of the medians, the median of the per-round differences: each round
  // runs every configuration back to back, so a load swing on the shared machine hits a pair alike.
  const paired = (times: number[]) => summarize(times.map((t, i) => t - without[i])).p50;
  const diff = {
    median_ms: b.median_ms - a.median_ms,
    p95_ms: b.p95_ms - a.p95_ms,
    paired_median_ms: paired(withHooks),
  };
  const hooksDiff = {
    median_ms: h.median_ms - a.median_ms,
    p95_ms: h.p95_ms - a.p95_ms,
    paired_median_ms: paired(onlyHooks),
  };
  const shimsDiff = {
    median_ms: sh.median_ms - a.median_ms,
    p95_ms: sh.p95_ms - a.p95_ms,
    paired_median_ms: paired(onlyShims),
  };
  const overheads = [
    ["hooks, shim only", shimsDiff],
    ["hooks only", hooksDiff],
    ["hooks + MCP", diff],
  ] as const;
  for (const [label, d] of overheads) {
    console.log(
      `claude-code: overhead per session, ${label}: median ${signed(d.median_ms)}, p95 ${
        signed(d.p95_ms)
      }, paired median ${signed(d.paired_median_ms)}`,
    );
  }
  return {
    without_kiro_learn: a,
    with_kiro_learn: b,
    hooks_only: h,
    hooks_shim_only: sh,
    overhead: diff,
    overhead_hooks_only: hooksDiff,
    overhead_hooks_shim_only: shimsDiff,
    collectors: {
      with_kiro_learn: hookFigures[0],
      hooks_only: hookFigures[1],
      hooks_shim_only: hookFigures[2],
    },
    times_ms: {
      without_kiro_learn: without,
      hooks_shim_only: onlyShims,
      hooks_only: onlyHooks,
      with_kiro_learn: withHooks,
    },
    session: "claude -p, one prompt, one Bash call (echo hi), one answer; scripted model",
    claude_code: CLAUDE_CODE_VERSION,
    runner: "sh launcher: curl over the collector's Unix socket, else deno run of the shim",
    deno: Deno.version.deno,
    quick,
    at: new Date().toISOString(),
  };
}

if (import.meta.main) {
  const results = await benchClaudeCode();
  await Deno.mkdir(new URL(".", `file://${out}`).pathname, { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(results, null, 2) + "\n");
  console.log(`claude-code: wrote ${out}`);
}
