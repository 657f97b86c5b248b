/**
 * Claude Code overhead benchmark: what kiro-learn's hooks and MCP server add to a real session, as
 * a user pays it. Times whole `claude -p` runs of the real client (the version `prepare.ts` pins
 * and installs), offline against the scripted model on loopback, each session one prompt, one
 * Bash call (`echo hi`) and an answer: in a HOME without kiro-learn, and in two HOMEs where
 * kiro-learn is installed by its own installer with a running collector (the hooks fire per
 * session: SessionStart, UserPromptSubmit, PostToolUse, Stop, SessionEnd, each a `deno run` of
 * the shim) — one with the MCP tools served by the collector over HTTP (the default), one with
 * the stdio MCP server Claude Code starts per session (`install --mcp stdio`, as before).
 * Runs rotate between the three so drift on a shared machine hits all alike. `--mcp-only` takes
 * the hooks out of both installations, so the figures isolate the MCP server's share.
 *
 * Not part of the default `deno task bench` run (it needs the client): run it with
 * `deno task bench claude-code`, or `deno run -A collector/tooling/bench/claude_code_bench.ts
 * [--quick] [--mcp-only] [--runs=N] [--out=<path>]`. Figures go to stdout and to
 * `.bench/claude-code.json` (`claude-code-mcp.json` with `--mcp-only`).
 *
 * @module
 */
import { formatMs, summarize } from "@kiro-learn/core/testing";
import {
  CLAUDE_CODE_VERSION,
  claudeSandbox,
  outputText,
  requestText,
  startScriptedModel,
  toolThenText,
} from "../testing/mod.ts";

const quick = Deno.args.includes("--quick");
const mcpOnly = Deno.args.includes("--mcp-only");
const RUNS = Number(Deno.args.find((a) => a.startsWith("--runs="))?.slice(7) ?? (quick ? 5 : 20));
const WARMUP = 1;
const out = Deno.args.find((a) => a.startsWith("--out="))?.slice(6) ??
  new URL(
    `../../../.bench/claude-code${mcpOnly ? "-mcp" : ""}${quick ? "-quick" : ""}.json`,
    import.meta.url,
  ).pathname;
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
  return `${ms < 0 ? "-" : "+"}${formatMs(Math.abs(ms))}`;
}

function line(label: string, f: Figure): string {
  return `claude-code: ${label.padEnd(28)} median ${formatMs(f.median_ms).padStart(8)}  p95 ${
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
  await using stdio = await claudeSandbox();
  const bareProject = await bare.project("app");
  const hookedProject = await hooked.project("app");
  const stdioProject = await stdio.project("app");
  for (
    const [box, project, args] of [
      [hooked, hookedProject, ["install"]],
      [hooked, hookedProject, ["start"]],
      [stdio, stdioProject, ["install", "--mcp", "stdio"]],
      [stdio, stdioProject, ["start"]],
    ] as const
  ) {
    const done = await box.kiroLearn([...args], project);
    if (done.code !== 0) {
      throw new Error(
        `kiro-learn ${args.join(" ")} failed in the benchmark's sandbox: ${outputText(done)}`,
      );
    }
  }
  if (mcpOnly) {
    for (const box of [hooked, stdio]) {
      const path = `${box.home}/.claude/settings.json`;
      const settings = JSON.parse(await Deno.readTextFile(path));
      delete settings.hooks;
      await Deno.writeTextFile(path, JSON.stringify(settings, null, 2));
    }
  }
  // Claude Code's own figure for the MCP server's connection, from its debug log (--mcp-only).
  const connects = new Map<typeof bare, number[]>([[hooked, []], [stdio, []]]);
  const session = async (box: typeof bare, cwd: string): Promise<number> => {
    const started = performance.now();
    const run = await box.claude("Run echo hi and tell me what it printed", {
      cwd,
      modelUrl: model.url,
      // All three log alike, so the debug log costs each the same.
      args: mcpOnly ? ["--debug", "mcp"] : [],
    });
    const ms = performance.now() - started;
    if (mcpOnly && box !== bare) {
      const log = await Deno.readTextFile(`${box.home}/.claude/debug/latest`);
      const connected = /"kiro-learn-memory": Successfully connected \(transport: \w+\) in (\d+)ms/
        .exec(log);
      if (connected === null) {
        throw new Error("Claude Code's debug log says kiro-learn-memory did not connect: " + log);
      }
      connects.get(box)!.push(Number(connected[1]));
    }
    if (run.code !== 0 || run.result !== ANSWER) {
      throw new Error(
        `a claude -p session failed (exit ${run.code}, result ${JSON.stringify(run.result)}): ` +
          run.stderr + run.stdout.slice(0, 2000),
      );
    }
    return ms;
  };
  const configs = [
    { box: bare, cwd: bareProject, times: [] as number[] },
    { box: hooked, cwd: hookedProject, times: [] as number[] },
    { box: stdio, cwd: stdioProject, times: [] as number[] },
  ];
  for (let i = -WARMUP; i < RUNS; i++) {
    // Rotate which goes first, so none always runs on a machine another just warmed.
    for (let k = 0; k < configs.length; k++) {
      const config = configs[(i + WARMUP + k) % configs.length];
      const ms = await session(config.box, config.cwd);
      if (i >= 0) config.times.push(ms);
    }
  }
  const [without, withHooks, withStdio] = configs.map((c) => c.times);
  // The MCP servers must have connected: the model saw their tools, and no failure.
  const texts = model.requests.map((r) => requestText(r.body));
  const offered = texts.filter((t) => t.includes("mcp__kiro-learn-memory__search_memory")).length;
  if (offered === 0 || texts.some((t) => t.includes("failed to connect"))) {
    throw new Error(
      "the kiro-learn-memory MCP server did not connect in every session, so the figures would " +
        "not measure it; check `kiro-learn doctor`",
    );
  }
  // The hooks must have run: every hooked session's prompt reached the collector.
  for (const box of mcpOnly ? [] : [hooked, stdio]) {
    const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
    const res = await fetch(`http://127.0.0.1:${box.port}/v1/events?limit=1000`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const prompts = ((await res.json()).items as { kind: string }[])
      .filter((e) => e.kind === "prompt").length;
    if (prompts !== RUNS + WARMUP) {
      throw new Error(
        `the collector holds ${prompts} prompts for ${RUNS + WARMUP} hooked sessions: the hooks ` +
          "did not all run, so the figures would not measure them; check `kiro-learn doctor`",
      );
    }
  }
  console.log(
    `claude-code: ${RUNS + WARMUP} sessions per setup, ` +
      (mcpOnly ? "MCP server only (no hooks), connected" : "each prompt recorded"),
  );
  const a = figure(without);
  const b = figure(withHooks);
  const c = figure(withStdio);
  console.log(line("without kiro-learn", a));
  const what = mcpOnly ? "MCP only" : "kiro-learn";
  const connectFigures = mcpOnly
    ? { http: figure(connects.get(hooked)!), stdio: figure(connects.get(stdio)!) }
    : undefined;
  console.log(line(`with ${what} (HTTP MCP)`, b));
  console.log(line(`with ${what} (stdio MCP)`, c));
  const diff = { median_ms: b.median_ms - a.median_ms, p95_ms: b.p95_ms - a.p95_ms };
  const diffStdio = { median_ms: c.median_ms - a.median_ms, p95_ms: c.p95_ms - a.p95_ms };
  for (const [label, d] of [["HTTP MCP", diff], ["stdio MCP", diffStdio]] as const) {
    console.log(
      `claude-code: overhead per session (${label}): median ${signed(d.median_ms)}, p95 ${
        signed(d.p95_ms)
      }`,
    );
  }
  if (connectFigures) {
    console.log(line("MCP connect (HTTP)", connectFigures.http));
    console.log(line("MCP connect (stdio)", connectFigures.stdio));
  }
  return {
    mcp_connect_ms: connectFigures,
    without_kiro_learn: a,
    with_kiro_learn: b,
    with_kiro_learn_stdio_mcp: c,
    overhead: diff,
    overhead_stdio_mcp: diffStdio,
    session: "claude -p, one prompt, one Bash call (echo hi), one answer; scripted model",
    mcp_only: mcpOnly,
    claude_code: CLAUDE_CODE_VERSION,
    runner: "deno run (no compiled shims)",
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
