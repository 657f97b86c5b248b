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
 * [--quick] [--mcp-only] [--runs=N] [--tools=N] [--hogs=N] [--out=<path>]` (`--tools=N`: N Bash
 * calls per session instead of one; `--hogs=N`: N busy-looping processes throughout, as a loaded
 * machine). Figures go to stdout and to `.bench/claude-code.json` (`claude-code-mcp.json` with
 * `--mcp-only`, `claude-code-tools<N>.json` with `--tools=N`, `-hogs<N>` under load). The rounds,
 * the load and the paired summary are `agent_bench.ts`'s, shared with the Codex and Gemini CLI
 * benchmarks.
 *
 * @module
 */
import { type TimingFigure, timingFigure } from "@kiro-learn/core/testing";
import {
  CLAUDE_CODE_VERSION,
  type ClaudeSandbox,
  claudeSandbox,
  requestText,
  startScriptedModel,
  toolsThenText,
} from "../testing/mod.ts";
import {
  type AgentBenchOptions,
  agentBenchOptions,
  type AgentSetup,
  agentSetups,
  chosenSetups,
  figuresPath,
  intOption,
  makeSetup,
  makeSetups,
  measureSetups,
  removeJsonHooks,
  removeJsonMcpEntry,
  type SetupSpec,
  timingLine,
  writeFigures,
} from "./agent_bench.ts";

const ANSWER = "It printed hi.";
const PREFIX = "claude-code";

/** Options of {@linkcode benchClaudeCode}. */
export interface ClaudeBenchOptions extends AgentBenchOptions {
  /** Only the MCP setups, hooks taken out, with Claude Code's own MCP timings. */
  mcpOnly: boolean;
  /** Bash calls per session. */
  tools: number;
}

/** One setup, with what Claude Code's debug log says of its MCP connection (`--mcp-only`). */
interface Setup extends AgentSetup<ClaudeSandbox> {
  /** Its connect time, in ms. */
  connects: number[];
  /** How long the headers helper ran, in ms. */
  helpers: number[];
  /** Its wait for MCP servers before the first request (startup profiler), in ms. */
  prewaits: number[];
}

/**
 * The setups, the one without kiro-learn first (see the module's documentation): with
 * `mcpOnly`, the MCP setups with the hooks taken out; else the hooks-only setups, the second
 * running the shim on every hook.
 */
export function claudeSetups(mcpOnly: boolean): SetupSpec<ClaudeSandbox>[] {
  const specs = agentSetups<ClaudeSandbox>({
    mcpEntry: (box) => removeJsonMcpEntry(`${box.home}/.claude.json`),
    hooks: (box) => removeJsonHooks(`${box.home}/.claude/settings.json`),
  }, { mcp: "HTTP MCP", stdio: true, without: mcpOnly ? "hooks" : "mcp" });
  const hooksOnly = specs.find((spec) => spec.key === "hooks_only");
  if (hooksOnly === undefined) return specs;
  return [...specs, {
    ...hooksOnly,
    key: "hooks_shim_only",
    label: "hooks, shim only (no MCP)",
    async adjust(box) {
      await hooksOnly.adjust?.(box);
      // Without the header file the launcher execs the shim at once: the path before the fast path.
      await Deno.remove(`${box.dataDir}/hook-auth`);
    },
  }];
}

async function setUp(spec: SetupSpec<ClaudeSandbox>, mcpOnly: boolean): Promise<Setup> {
  const setup = await makeSetup(await claudeSandbox(), spec);
  // Claude Code's startup profiler logs its MCP wait; every setup runs with it, so it costs all alike.
  if (mcpOnly) setup.box.env.CLAUDE_CODE_PROFILE_STARTUP = "1";
  return { ...setup, connects: [], helpers: [], prewaits: [] };
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

/** The options of a command line (see the module's documentation). */
export function claudeBenchOptions(args: readonly string[]): ClaudeBenchOptions {
  return {
    ...agentBenchOptions(args),
    mcpOnly: args.includes("--mcp-only"),
    tools: intOption(args, "tools", 1, 1),
  };
}

/** Runs the benchmark; returns its figures. */
export async function benchClaudeCode(
  options: ClaudeBenchOptions,
): Promise<Record<string, unknown>> {
  const { mcpOnly } = options;
  const bash = { name: "Bash", input: { command: "echo hi", description: "Say hi" } };
  await using model = startScriptedModel(
    toolsThenText(Array.from({ length: options.tools }, () => bash), ANSWER),
  );
  const setups = await makeSetups<Setup>(
    chosenSetups(claudeSetups(mcpOnly), options.setups).map((spec) => () => setUp(spec, mcpOnly)),
  );
  const session = async (setup: Setup, keep: boolean): Promise<number> => {
    const started = performance.now();
    const run = await setup.box.claude("Run echo hi and tell me what it printed", {
      cwd: setup.cwd,
      modelUrl: model.url,
      // Every setup logs alike, so the debug log costs each the same.
      args: mcpOnly ? ["--debug", "mcp"] : [],
    });
    const ms = performance.now() - started;
    if (mcpOnly && keep) {
      const log = await Deno.readTextFile(`${setup.box.home}/.claude/debug/latest`);
      setup.prewaits.push(mcpPrewaitMs(log));
      if (setup.mcp) {
        const connected =
          /"kiro-learn-memory": Successfully connected \(transport: \w+\) in (\d+)ms/.exec(log);
        if (connected === null) {
          throw new Error("Claude Code's debug log says kiro-learn-memory did not connect: " + log);
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
  const summary = await measureSetups(PREFIX, setups, { ...options, session });
  // The MCP servers must have connected: the model saw their tools, and no failure.
  const texts = model.requests.map((r) => requestText(r.body));
  const offered = texts.filter((t) => t.includes("search_memory")).length;
  if (offered === 0 || texts.some((t) => t.includes("failed to connect"))) {
    throw new Error(
      "the kiro-learn-memory MCP server did not connect in every session, so the figures would " +
        "not measure it; check `kiro-learn doctor`",
    );
  }
  const connects: Record<string, TimingFigure> = {};
  const helpers: Record<string, TimingFigure> = {};
  const prewaits: Record<string, TimingFigure> = {};
  for (const setup of setups) {
    // Without kiro-learn too: what Claude Code waits with no MCP server at all.
    if (setup.prewaits.length > 0) {
      prewaits[setup.key] = timingFigure(setup.prewaits);
      console.log(timingLine(PREFIX, `MCP wait (${setup.label})`, prewaits[setup.key]));
    }
    if (setup.connects.length > 0) {
      connects[setup.key] = timingFigure(setup.connects);
      console.log(timingLine(PREFIX, `MCP connect (${setup.label})`, connects[setup.key]));
    }
    if (setup.helpers.length > 0) {
      helpers[setup.key] = timingFigure(setup.helpers);
      console.log(timingLine(PREFIX, `helper (${setup.label})`, helpers[setup.key]));
    }
  }
  const { figures, ...rest } = summary;
  return {
    ...figures,
    ...rest,
    mcp_connect_ms: mcpOnly ? connects : undefined,
    mcp_headers_helper_ms: mcpOnly ? helpers : undefined,
    mcp_prewait_ms: mcpOnly ? prewaits : undefined,
    session: `claude -p, one prompt, ${options.tools} Bash call(s) (echo hi), one answer; ` +
      "scripted model",
    tools: options.tools,
    mcp_only: mcpOnly,
    claude_code: CLAUDE_CODE_VERSION,
    runner: "sh launcher: curl over the collector's Unix socket, else deno run of the shim; " +
      "Stop's shim reads the turn's tool uses from the transcript, in the background",
    deno: Deno.version.deno,
    quick: options.quick,
    at: new Date().toISOString(),
  };
}

if (import.meta.main) {
  const options = claudeBenchOptions(Deno.args);
  const name = `claude-code${options.mcpOnly ? "-mcp" : ""}${
    options.tools === 1 ? "" : `-tools${options.tools}`
  }`;
  const out = figuresPath(Deno.args, name, options);
  await writeFigures(out, await benchClaudeCode(options));
  console.log(`${PREFIX}: wrote ${out}`);
}
