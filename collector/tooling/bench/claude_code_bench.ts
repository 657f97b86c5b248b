/**
 * Claude Code overhead benchmark: what kiro-learn's hooks and MCP server add to a real session, as
 * a user pays it. Times whole `claude -p` runs of the real client (the version `prepare.ts` pins
 * and installs), offline against the scripted model on loopback, each session one prompt, one
 * Bash call (`echo hi`) and an answer. Setups, each in a HOME of its own with kiro-learn installed
 * by its own installer and a running collector (two hooks fire per session: UserPromptSubmit, its
 * `sh` launcher posting the raw payload over the collector's Unix socket with curl, or running the
 * shim when that fails; and Stop, which only stores, so its launcher hands the shim, which reads
 * the turn's tool uses from the transcript, to the background and returns at once; none is
 * installed for a session's startup or end, nor per tool call):
 *
 * - without kiro-learn;
 * - the default install (the MCP tools served by the collector over HTTP);
 * - `install --mcp stdio` (the stdio MCP server Claude Code starts per session, as before);
 * - the hooks alone (the default install minus its MCP server entry);
 * - the hooks alone, each running the shim (`deno run`, the path before the fast path).
 *
 * Runs rotate among them so drift on a shared machine hits all alike. `--mcp-only` takes the hooks
 * out of the two MCP setups (and skips the hooks-only ones), so the figures isolate the MCP
 * server's share, with what Claude Code's debug log says of it: its connect time, how long the
 * headers helper ran, and how long the session waited for MCP servers still connecting before its
 * first model request (`mcp_prewait_ms` of its startup profiler, `CLAUDE_CODE_PROFILE_STARTUP=1`,
 * which every setup then runs with). In `claude -p` that wait covers every server still
 * connecting, whatever its entry says (up to 2 s); without it the connection's work would still
 * run on Claude Code's one thread before the session ends.
 *
 * Not part of the default `deno task bench` run (it needs the client): run it with
 * `deno task bench claude-code`, or `deno run -A collector/tooling/bench/claude_code_bench.ts
 * [--quick] [--mcp-only] [--runs=N] [--tools=N] [--out=<path>]` (`--tools=N`: N Bash calls per
 * session instead of one). Figures go to stdout and to `.bench/claude-code.json`
 * (`claude-code-mcp.json` with `--mcp-only`, `claude-code-tools<N>.json` with `--tools=N`).
 *
 * @module
 */
import { formatMs, summarize, type TimingFigure, timingFigure } from "@kiro-learn/core/testing";
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import {
  CLAUDE_CODE_VERSION,
  claudeSandbox,
  isCollectorProcess,
  outputText,
  processesWithEnv,
  requestText,
  startScriptedModel,
  toolsThenText,
  waitFor,
} from "../testing/mod.ts";

const quick = Deno.args.includes("--quick");
const mcpOnly = Deno.args.includes("--mcp-only");
const RUNS = Number(Deno.args.find((a) => a.startsWith("--runs="))?.slice(7) ?? (quick ? 5 : 20));
/** Bash calls per session (default 1): what kiro-learn costs per tool call shows with more. */
const TOOLS = Number(Deno.args.find((a) => a.startsWith("--tools="))?.slice(8) ?? 1);
const WARMUP = 1;
const out = Deno.args.find((a) => a.startsWith("--out="))?.slice(6) ??
  new URL(
    `../../../.bench/claude-code${mcpOnly ? "-mcp" : ""}${TOOLS === 1 ? "" : `-tools${TOOLS}`}${
      quick ? "-quick" : ""
    }.json`,
    import.meta.url,
  ).pathname;
const ANSWER = "It printed hi.";

function signed(ms: number): string {
  return ms < 0 ? `-${formatMs(-ms)}` : `+${formatMs(ms)}`;
}

function line(label: string, f: TimingFigure): string {
  return `claude-code: ${label.padEnd(28)} median ${formatMs(f.median_ms).padStart(8)}  p95 ${
    formatMs(f.p95_ms).padStart(8)
  }  (min ${formatMs(f.min_ms)}, max ${formatMs(f.max_ms)}, ${f.runs} runs)`;
}

type Sandbox = Awaited<ReturnType<typeof claudeSandbox>>;

/** One setup the benchmark times. */
interface Setup {
  /** Key in the JSON figures. */
  key: string;
  /** Label on stdout. */
  label: string;
  box: Sandbox;
  cwd: string;
  /** `kiro-learn install` arguments, or null for no kiro-learn. */
  install: string[] | null;
  /** Whether its hooks are installed (and must have recorded every prompt). */
  hooks: boolean;
  /** Whether Claude Code connects to our MCP server. */
  mcp: boolean;
  times: number[];
  /** From Claude Code's debug log (`--mcp-only`): its connect time, in ms. */
  connects: number[];
  /** From Claude Code's debug log (`--mcp-only`): how long the headers helper ran, in ms. */
  helpers: number[];
  /** From Claude Code's profiler (`--mcp-only`): its wait for MCP servers before the first request. */
  prewaits: number[];
}

async function removeMcpEntry(box: Sandbox): Promise<void> {
  const userConfig = `${box.home}/.claude.json`;
  const config = JSON.parse(await Deno.readTextFile(userConfig));
  if (config.mcpServers?.[MCP_SERVER_NAME] === undefined) {
    throw new Error(`install wrote no ${MCP_SERVER_NAME} entry into ${userConfig}`);
  }
  delete config.mcpServers[MCP_SERVER_NAME];
  await Deno.writeTextFile(userConfig, JSON.stringify(config, null, 2));
}

async function removeHooks(box: Sandbox): Promise<void> {
  const path = `${box.home}/.claude/settings.json`;
  const settings = JSON.parse(await Deno.readTextFile(path));
  delete settings.hooks;
  await Deno.writeTextFile(path, JSON.stringify(settings, null, 2));
}

async function setUp(
  key: string,
  label: string,
  options: { install: string[] | null; hooks: boolean; mcp: boolean },
): Promise<Setup> {
  const box = await claudeSandbox();
  const cwd = await box.project("app");
  if (options.install !== null) {
    for (const args of [options.install, ["start"]]) {
      const done = await box.kiroLearn(args, cwd);
      if (done.code !== 0) {
        throw new Error(
          `kiro-learn ${args.join(" ")} failed in the benchmark's sandbox: ${outputText(done)}`,
        );
      }
    }
    if (!options.mcp) await removeMcpEntry(box);
    if (!options.hooks) await removeHooks(box);
  }
  // Claude Code's startup profiler logs its MCP wait; every setup runs with it, so it costs all alike.
  if (mcpOnly) box.env.CLAUDE_CODE_PROFILE_STARTUP = "1";
  return { key, label, box, cwd, ...options, times: [], connects: [], helpers: [], prewaits: [] };
}

/** Every hooked session's prompt reached the collector; and its fast-path hook figures. */
async function hookFigures(setup: Setup): Promise<Record<string, unknown>> {
  const { box } = setup;
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
    `claude-code: ${setup.label}: ${prompts} prompts recorded; fast-path hook firings ${
      hook?.count ?? 0
    } (collector side p50 ${hook?.p50 ?? "-"} ms, p95 ${hook?.p95 ?? "-"} ms)`,
  );
  return { prompts, fast_path_hooks: hook ?? null };
}

/**
 * `mcp_prewait_ms` of Claude Code's startup profiler (`CLAUDE_CODE_PROFILE_STARTUP=1`) in a debug
 * log: how long the session waited for MCP servers still connecting before its first request.
 */
function mcpPrewaitMs(log: string): number {
  const metrics = /\[headlessProfiler\] Turn 0 metrics: (\{.*\})/.exec(log);
  const prewait = metrics === null ? undefined : JSON.parse(metrics[1]).mcp_prewait_ms;
  if (typeof prewait !== "number") {
    throw new Error(
      "Claude Code's debug log has no mcp_prewait_ms from its startup profiler " +
        "(CLAUDE_CODE_PROFILE_STARTUP=1): the client changed; run without --mcp-only, or read " +
        "its log by hand: " + log.slice(-2000),
    );
  }
  return prewait;
}

/** How long kiro-learn-memory's headers helper ran, from the debug log's timestamps (ms). */
function headersHelperMs(log: string): number | null {
  const at = (pattern: RegExp) => {
    const line = log.split("\n").find((l) => pattern.test(l));
    return line === undefined ? NaN : Date.parse(line.slice(0, line.indexOf(" ")));
  };
  const ms = at(/"kiro-learn-memory": Successfully retrieved \d+ headers/) -
    at(/"kiro-learn-memory": Executing headersHelper/);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Waits, untimed, until a session's background work (the Stop hook's delivery, which goes on
 * after Claude Code exits) has ended: it would otherwise run into the next session, which may be
 * another setup's, and slow that one instead.
 */
async function backgroundDone(setup: Setup): Promise<void> {
  const left = () =>
    processesWithEnv("HOME", setup.box.home).filter((pid) => !isCollectorProcess(pid));
  await waitFor(() => Promise.resolve(left().length === 0 ? true : undefined), {
    timeoutMs: 30_000,
    intervalMs: 5,
    what: `the background work of a ${setup.label} session to end`,
  });
}

/** Runs the benchmark; returns the figures written to `out`. */
export async function benchClaudeCode(): Promise<Record<string, unknown>> {
  if (!Number.isInteger(RUNS) || RUNS < 1) {
    throw new Error(`--runs must be a positive integer, got ${RUNS}: pass e.g. --runs=20`);
  }
  if (!Number.isInteger(TOOLS) || TOOLS < 1) {
    throw new Error(`--tools must be a positive integer, got ${TOOLS}: pass e.g. --tools=5`);
  }
  const bash = { name: "Bash", input: { command: "echo hi", description: "Say hi" } };
  await using model = startScriptedModel(
    toolsThenText(Array.from({ length: TOOLS }, () => bash), ANSWER),
  );
  const hooks = !mcpOnly;
  const setups: Setup[] = [
    await setUp("without_kiro_learn", "without kiro-learn", {
      install: null,
      hooks: false,
      mcp: false,
    }),
    await setUp("with_kiro_learn", mcpOnly ? "HTTP MCP only" : "kiro-learn (HTTP MCP)", {
      install: ["install"],
      hooks,
      mcp: true,
    }),
    await setUp(
      "with_kiro_learn_stdio_mcp",
      mcpOnly ? "stdio MCP only" : "kiro-learn (stdio MCP)",
      { install: ["install", "--mcp", "stdio"], hooks, mcp: true },
    ),
  ];
  if (!mcpOnly) {
    setups.push(
      await setUp("hooks_only", "hooks only (no MCP)", { install: ["install"], hooks, mcp: false }),
    );
    const shimOnly = await setUp("hooks_shim_only", "hooks, shim only (no MCP)", {
      install: ["install"],
      hooks,
      mcp: false,
    });
    // Without the header file the launcher execs the shim at once: the path before the fast path.
    await Deno.remove(`${shimOnly.box.dataDir}/hook-auth`);
    setups.push(shimOnly);
  }
  try {
    const session = async (setup: Setup, keep: boolean): Promise<number> => {
      const started = performance.now();
      const run = await setup.box.claude("Run echo hi and tell me what it printed", {
        cwd: setup.cwd,
        modelUrl: model.url,
        // Every setup logs alike, so the debug log costs each the same.
        args: mcpOnly ? ["--debug", "mcp"] : [],
      });
      const ms = performance.now() - started;
      await backgroundDone(setup);
      if (mcpOnly && keep) {
        const log = await Deno.readTextFile(`${setup.box.home}/.claude/debug/latest`);
        setup.prewaits.push(mcpPrewaitMs(log));
        if (setup.mcp) {
          const connected =
            /"kiro-learn-memory": Successfully connected \(transport: \w+\) in (\d+)ms/.exec(log);
          if (connected === null) {
            throw new Error(
              "Claude Code's debug log says kiro-learn-memory did not connect: " + log,
            );
          }
          setup.connects.push(Number(connected[1]));
          const helper = headersHelperMs(log);
          if (helper !== null) setup.helpers.push(helper);
        }
      }
      if (run.code !== 0 || run.result !== ANSWER) {
        throw new Error(
          `a claude -p session failed (exit ${run.code}, result ${JSON.stringify(run.result)}): ` +
            run.stderr + run.stdout.slice(0, 2000),
        );
      }
      return ms;
    };
    for (let i = -WARMUP; i < RUNS; i++) {
      // Rotate which goes first, so none always runs on a machine another just warmed.
      for (let k = 0; k < setups.length; k++) {
        const setup = setups[(k + i + WARMUP) % setups.length];
        const ms = await session(setup, i >= 0);
        if (i >= 0) setup.times.push(ms);
      }
    }
    // The MCP servers must have connected: the model saw their tools, and no failure.
    const texts = model.requests.map((r) => requestText(r.body));
    const offered = texts.filter((t) => t.includes("search_memory")).length;
    if (offered === 0 || texts.some((t) => t.includes("failed to connect"))) {
      throw new Error(
        "the kiro-learn-memory MCP server did not connect in every session, so the figures would " +
          "not measure it; check `kiro-learn doctor`",
      );
    }
    const collectors: Record<string, unknown> = {};
    for (const setup of setups) {
      if (setup.hooks) collectors[setup.key] = await hookFigures(setup);
    }
    const without = setups[0].times;
    const base = timingFigure(without);
    // Besides the difference of the medians, the median of the per-round differences: each round
    // runs every setup back to back, so a load swing on the shared machine hits a pair alike.
    const paired = (times: number[]) => summarize(times.map((t, i) => t - without[i])).p50;
    const figures: Record<string, unknown> = {};
    const overheads: Record<string, unknown> = {};
    const connects: Record<string, unknown> = {};
    const helpers: Record<string, unknown> = {};
    const prewaits: Record<string, unknown> = {};
    for (const setup of setups) {
      const f = timingFigure(setup.times);
      figures[setup.key] = f;
      console.log(line(setup.label, f));
      // Without kiro-learn too: what Claude Code waits with no MCP server at all.
      if (setup.prewaits.length > 0) prewaits[setup.key] = timingFigure(setup.prewaits);
      if (setup === setups[0]) continue;
      const d = {
        median_ms: f.median_ms - base.median_ms,
        p95_ms: f.p95_ms - base.p95_ms,
        paired_median_ms: paired(setup.times),
      };
      overheads[setup.key] = d;
      if (setup.connects.length > 0) connects[setup.key] = timingFigure(setup.connects);
      if (setup.helpers.length > 0) helpers[setup.key] = timingFigure(setup.helpers);
    }
    for (const setup of setups.slice(1)) {
      const d = overheads[setup.key] as {
        median_ms: number;
        p95_ms: number;
        paired_median_ms: number;
      };
      console.log(
        `claude-code: overhead per session, ${setup.label}: median ${signed(d.median_ms)}, p95 ${
          signed(d.p95_ms)
        }, paired median ${signed(d.paired_median_ms)}`,
      );
      if (setup.connects.length > 0) {
        console.log(line(`MCP connect (${setup.label})`, connects[setup.key] as TimingFigure));
      }
      if (setup.helpers.length > 0) {
        console.log(line(`helper (${setup.label})`, helpers[setup.key] as TimingFigure));
      }
      if (setup.prewaits.length > 0) {
        console.log(line(`MCP wait (${setup.label})`, prewaits[setup.key] as TimingFigure));
      }
    }
    return {
      ...figures,
      overhead: overheads,
      mcp_connect_ms: mcpOnly ? connects : undefined,
      mcp_headers_helper_ms: mcpOnly ? helpers : undefined,
      mcp_prewait_ms: mcpOnly ? prewaits : undefined,
      collectors,
      times_ms: Object.fromEntries(setups.map((s) => [s.key, s.times])),
      session: `claude -p, one prompt, ${TOOLS} Bash call(s) (echo hi), one answer; scripted model`,
      tools: TOOLS,
      mcp_only: mcpOnly,
      claude_code: CLAUDE_CODE_VERSION,
      runner: "sh launcher: curl over the collector's Unix socket, else deno run of the shim; " +
        "Stop's shim reads the turn's tool uses from the transcript, in the background",
      deno: Deno.version.deno,
      quick,
      at: new Date().toISOString(),
    };
  } finally {
    for (const setup of setups) await setup.box[Symbol.asyncDispose]();
  }
}

if (import.meta.main) {
  const results = await benchClaudeCode();
  await Deno.mkdir(new URL(".", `file://${out}`).pathname, { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(results, null, 2) + "\n");
  console.log(`claude-code: wrote ${out}`);
}
