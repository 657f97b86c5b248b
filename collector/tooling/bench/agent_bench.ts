/**
 * What the agent-session benchmarks share (`claude_code_bench.ts`, `codex_bench.ts`,
 * `gemini_cli_bench.ts`, `copilot_cli_bench.ts`): their command-line options, their setups (from
 * how each takes out its MCP entry and its hooks), busy-looping processes for a loaded machine
 * (`--hogs=N`, also used by `acp_start_bench.ts`), kiro-learn installed in a sandbox by its own
 * CLI, setups run in rotating interleaved rounds (drift on a shared machine hits all alike), the
 * check that every hooked session reached the collector, and the paired summary: per setup its
 * timing and its overhead over the setup without kiro-learn (the difference of the medians, and
 * the median of the per-round differences, which a load swing hits alike within a round).
 *
 * @module
 */
import { formatMs, summarize, type TimingFigure, timingFigure } from "@kiro-learn/core/testing";
import { MCP_SERVER_NAME } from "@kiro-learn/agents";
import { type AgentSandbox, type ModelRequest, waitFor } from "../testing/mod.ts";

/** The options every agent-session benchmark takes. */
export interface AgentBenchOptions {
  /** Measured rounds (each runs every setup once). */
  runs: number;
  /** Unmeasured rounds first (the client's and the collector's first start). */
  warmup: number;
  /** Busy-looping processes running throughout the measurement. */
  hogs: number;
  /** `--quick`: the small default run count. */
  quick: boolean;
  /**
   * `--setups=<key>,…`: the setups to measure beside the one without kiro-learn (all when
   * null): fewer setups take more rounds in the same time, for a tighter paired median.
   */
  setups: readonly string[] | null;
}

/** An integer option `--<name>=N` of `args`, or `fallback`; throws on anything but N ≥ `min`. */
export function intOption(
  args: readonly string[],
  name: string,
  fallback: number,
  min = 0,
): number {
  const raw = args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(
      `--${name} must be an integer of at least ${min}, got ${raw}: pass e.g. --${name}=2`,
    );
  }
  return value;
}

/**
 * `--quick`, `--runs=N` (default 20, 5 with `--quick`), `--warmup=N` (default 1), `--hogs=N`
 * (default 0) and `--setups=<key>,…` (default all) of `args`.
 */
export function agentBenchOptions(args: readonly string[]): AgentBenchOptions {
  const quick = args.includes("--quick");
  const setups = args.find((a) => a.startsWith("--setups="))?.slice("--setups=".length);
  return {
    runs: intOption(args, "runs", quick ? 5 : 20, 1),
    warmup: intOption(args, "warmup", 1, 0),
    hogs: intOption(args, "hogs", 0),
    quick,
    setups: setups === undefined ? null : setups.split(",").filter((key) => key !== ""),
  };
}

/**
 * The setups `chosen` names (null: all), always after the first (the one without kiro-learn);
 * throws, naming the valid keys, on a key no setup has.
 */
export function chosenSetups<S extends { key: string }>(
  specs: readonly S[],
  chosen: readonly string[] | null,
): S[] {
  if (chosen === null) return [...specs];
  const keys = specs.map((spec) => spec.key);
  const unknown = chosen.filter((key) => !keys.includes(key));
  if (unknown.length > 0 || chosen.length === 0) {
    throw new Error(
      `--setups names no setup of this benchmark (${unknown.join(", ") || "none given"}): ` +
        `choose among ${keys.slice(1).join(", ")}`,
    );
  }
  return [specs[0], ...specs.slice(1).filter((spec) => chosen.includes(spec.key))];
}

/**
 * Where a benchmark's figures go: `--out=<path>`, else `.bench/<name><suffixes>.json` with
 * `-hogs<N>` under load and `-quick` for a quick run.
 */
export function figuresPath(
  args: readonly string[],
  name: string,
  options: AgentBenchOptions,
): string {
  const given = args.find((a) => a.startsWith("--out="))?.slice(6);
  if (given !== undefined) return given;
  const suffix = `${options.hogs > 0 ? `-hogs${options.hogs}` : ""}${
    options.quick ? "-quick" : ""
  }`;
  return new URL(`../../../.bench/${name}${suffix}.json`, import.meta.url).pathname;
}

/** Writes a benchmark's figures as JSON to `path`, making its folder. */
export async function writeFigures(path: string, figures: unknown): Promise<void> {
  await Deno.mkdir(new URL(".", `file://${path}`).pathname, { recursive: true });
  await Deno.writeTextFile(path, JSON.stringify(figures, null, 2) + "\n");
}

/** Busy-looping processes, one core each, as a loaded machine has. */
export interface Hogs extends AsyncDisposable {
  /** How many run. */
  count: number;
  /** Their process ids. */
  pids: number[];
}

/** Starts `count` processes that keep one core busy each; disposing ends them. */
export function startHogs(count: number): Hogs {
  const children = Array.from({ length: count }, () =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "for (;;) {}"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn());
  return {
    count,
    pids: children.map((child) => child.pid),
    async [Symbol.asyncDispose]() {
      for (const child of children) {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
        await child.status;
      }
    },
  };
}

/** The machine's one-minute load average before and after a measurement. */
export interface LoadFigure {
  /** Before the first round. */
  before: number;
  /** After the last. */
  after: number;
}

/** One setup an agent-session benchmark times, in a sandbox of its own. */
export interface AgentSetup<Box extends AgentSandbox = AgentSandbox> {
  /** Key in the JSON figures. */
  key: string;
  /** Label on stdout. */
  label: string;
  box: Box;
  /** The project folder sessions run in. */
  cwd: string;
  /** Whether kiro-learn's hooks are installed (every session's prompt must reach the collector). */
  hooks: boolean;
  /** Whether the client connects to kiro-learn's MCP server. */
  mcp: boolean;
  /** Measured session times, in ms, one per round. */
  times: number[];
}

/** What a setup is: kiro-learn installed how, and what of it is then taken out. */
export interface SetupSpec<Box extends AgentSandbox> {
  /** Key in the JSON figures. */
  key: string;
  /** Label on stdout. */
  label: string;
  /** Arguments after `kiro-learn install`, or null for no kiro-learn. */
  install: string[] | null;
  /** Whether the hooks stay installed. */
  hooks: boolean;
  /** Whether the MCP entry stays installed. */
  mcp: boolean;
  /** Takes out what the setup leaves out (the MCP entry, the hooks) after the install. */
  adjust?: (box: Box) => Promise<void>;
}

/** How an agent's benchmark takes out what `kiro-learn install` wrote for it. */
export interface SetupRemovers<Box extends AgentSandbox> {
  /** Takes kiro-learn's MCP entry out of the client's configuration (throws when there is none). */
  mcpEntry: (box: Box) => Promise<void>;
  /** Takes kiro-learn's hooks out. */
  hooks: (box: Box) => Promise<void>;
}

/** Which setups {@linkcode agentSetups} makes besides the one without kiro-learn. */
export interface AgentSetupsOptions {
  /** How the default install serves the MCP tools, as labels say it: `HTTP MCP`, `stdio MCP`. */
  mcp: string;
  /** Also `install --mcp stdio` (an agent whose default MCP entry is HTTP). */
  stdio?: boolean;
  /**
   * What the partial setups leave out: `both` (default) makes one setup without the MCP entry
   * (`hooks_only`) and one without the hooks (`mcp_only`); `mcp` only the former; `hooks` takes
   * the hooks out of every installed setup instead, so the figures isolate the MCP server's share.
   */
  without?: "both" | "mcp" | "hooks";
}

/**
 * An agent benchmark's setups, the one without kiro-learn first: the default install, `install
 * --mcp stdio` where `options.stdio` says, the hooks only and the MCP entry only (as
 * `options.without` says), each taking out what it leaves out with `removers` after the install.
 */
export function agentSetups<Box extends AgentSandbox>(
  removers: SetupRemovers<Box>,
  options: AgentSetupsOptions,
): SetupSpec<Box>[] {
  const without = options.without ?? "both";
  const hooks = without !== "hooks";
  const spec = (base: Omit<SetupSpec<Box>, "adjust">): SetupSpec<Box> => ({
    ...base,
    async adjust(box) {
      if (!base.mcp) await removers.mcpEntry(box);
      if (!base.hooks) await removers.hooks(box);
    },
  });
  const installed = (mcp: string) => hooks ? `kiro-learn (${mcp})` : `${mcp} only`;
  return [
    {
      key: "without_kiro_learn",
      label: "without kiro-learn",
      install: null,
      hooks: false,
      mcp: false,
    },
    spec({ key: "with_kiro_learn", label: installed(options.mcp), install: [], hooks, mcp: true }),
    ...(options.stdio
      ? [spec({
        key: "with_kiro_learn_stdio_mcp",
        label: installed("stdio MCP"),
        install: ["--mcp", "stdio"],
        hooks,
        mcp: true,
      })]
      : []),
    ...(hooks
      ? [spec({
        key: "hooks_only",
        label: "hooks only (no MCP)",
        install: [],
        hooks: true,
        mcp: false,
      })]
      : []),
    ...(without === "both"
      ? [spec({
        key: "mcp_only",
        label: `${options.mcp} only (no hooks)`,
        install: [],
        hooks: false,
        mcp: true,
      })]
      : []),
  ];
}

/**
 * Takes kiro-learn's server out of the `mcpServers` of the JSON file at `path` (Claude Code's
 * `~/.claude.json`, Gemini CLI's settings, Copilot CLI's `mcp-config.json`); throws when install
 * wrote none there.
 */
export async function removeJsonMcpEntry(path: string): Promise<void> {
  await editJsonFile(path, (config) => {
    const servers = config.mcpServers as Record<string, unknown> | undefined;
    if (servers?.[MCP_SERVER_NAME] === undefined) {
      throw new Error(`install wrote no ${MCP_SERVER_NAME} entry into ${path}`);
    }
    delete servers[MCP_SERVER_NAME];
  });
}

/** Takes the `hooks` out of the JSON settings file at `path` (Claude Code's, Gemini CLI's). */
export function removeJsonHooks(path: string): Promise<void> {
  return editJsonFile(path, (settings) => {
    delete settings.hooks;
  });
}

async function editJsonFile(
  path: string,
  edit: (value: Record<string, unknown>) => void,
): Promise<void> {
  const value = JSON.parse(await Deno.readTextFile(path));
  edit(value);
  await Deno.writeTextFile(path, JSON.stringify(value, null, 2) + "\n");
}

/**
 * Makes one setup in `box` (a fresh sandbox, disposed of here when the setup cannot be made):
 * a project folder, kiro-learn installed and started as `spec` says.
 */
export async function makeSetup<Box extends AgentSandbox>(
  box: Box,
  spec: SetupSpec<Box>,
): Promise<AgentSetup<Box>> {
  try {
    const cwd = await box.project("app");
    if (spec.install !== null) await box.installAndStart(cwd, spec.install);
    await spec.adjust?.(box);
    return {
      key: spec.key,
      label: spec.label,
      box,
      cwd,
      hooks: spec.hooks,
      mcp: spec.mcp,
      times: [],
    };
  } catch (error) {
    await box[Symbol.asyncDispose]();
    throw error;
  }
}

/** Makes every setup in turn; when one cannot be made, those made are disposed of. */
export async function makeSetups<S extends AgentSetup>(
  makers: readonly (() => Promise<S>)[],
): Promise<S[]> {
  const setups: S[] = [];
  try {
    for (const make of makers) setups.push(await make());
    return setups;
  } catch (error) {
    for (const setup of setups) await setup.box[Symbol.asyncDispose]();
    throw error;
  }
}

/**
 * Waits, untimed, until a session's background work (a hook's delivery that goes on after the
 * client exits) has ended: it would otherwise run into the next session, which may be another
 * setup's, and slow that one instead.
 */
export async function backgroundDone(setup: AgentSetup): Promise<void> {
  await waitFor(() => Promise.resolve(setup.box.strays().length === 0 ? true : undefined), {
    timeoutMs: 30_000,
    intervalMs: 5,
    what: `the background work of a ${setup.label} session to end`,
  });
}

/**
 * Runs `warmup` unmeasured rounds then `runs` measured ones; each round runs every setup's
 * `session` once (it returns the session's time), rotating which goes first so none always runs
 * on a machine another just warmed, and waits for its background work after each.
 */
export async function interleave<S extends AgentSetup>(
  setups: readonly S[],
  options: { runs: number; warmup: number },
  session: (setup: S, measured: boolean) => Promise<number>,
): Promise<void> {
  for (let i = -options.warmup; i < options.runs; i++) {
    for (let k = 0; k < setups.length; k++) {
      const setup = setups[(k + i + options.warmup) % setups.length];
      const ms = await session(setup, i >= 0);
      await backgroundDone(setup);
      if (i >= 0) setup.times.push(ms);
    }
  }
}

/** What the collector of a hooked setup recorded. */
export interface CollectorFigure {
  /** Prompts recorded (one per session). */
  prompts: number;
  /** The collector's own figures of fast-path hook requests, when any came. */
  fast_path_hooks: { count: number; p50: number; p95: number } | null;
}

/**
 * Checks that every session of a hooked setup (`sessions` in all) reached the collector as one
 * prompt, else the figures would not measure the hooks; returns what the collector recorded.
 */
export async function recordedPrompts(
  setup: AgentSetup,
  sessions: number,
): Promise<CollectorFigure> {
  const { box } = setup;
  const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
  const headers = { authorization: `Bearer ${token}` };
  const res = await fetch(`http://127.0.0.1:${box.port}/v1/events?limit=1000`, { headers });
  const prompts = ((await res.json()).items as { kind: string }[])
    .filter((e) => e.kind === "prompt").length;
  if (prompts !== sessions) {
    throw new Error(
      `the collector of "${setup.label}" holds ${prompts} prompts for ${sessions} hooked ` +
        "sessions: the hooks did not all run, so the figures would not measure them; check " +
        "`kiro-learn doctor`",
    );
  }
  const stats = await fetch(`http://127.0.0.1:${box.port}/v1/stats`, { headers });
  const hook = (await stats.json()).latency?.hook as CollectorFigure["fast_path_hooks"] | undefined;
  return { prompts, fast_path_hooks: hook ?? null };
}

/** One setup's overhead over the setup without kiro-learn, in ms. */
export interface Overhead {
  /** Difference of the medians. */
  median_ms: number;
  /** Difference of the 95th percentiles. */
  p95_ms: number;
  /** Median of the per-round differences. */
  paired_median_ms: number;
}

/** The paired summary of a benchmark's setups; the first is the one without kiro-learn. */
export interface PairedSummary {
  /** Each setup's session times. */
  figures: Record<string, TimingFigure>;
  /** Each other setup's overhead over the first. */
  overhead: Record<string, Overhead>;
  /** Every measured time, by setup. */
  times_ms: Record<string, number[]>;
}

/** Sums up setups measured in the same rounds; the first is the baseline. */
export function pairedSummary(setups: readonly Pick<AgentSetup, "key" | "times">[]): PairedSummary {
  const [base, ...others] = setups;
  const baseline = timingFigure(base.times);
  const figures: Record<string, TimingFigure> = {};
  const overhead: Record<string, Overhead> = {};
  for (const setup of setups) figures[setup.key] = timingFigure(setup.times);
  for (const setup of others) {
    if (setup.times.length !== base.times.length) {
      throw new Error(
        `setup ${setup.key} has ${setup.times.length} runs, the baseline ${base.times.length}`,
      );
    }
    const f = figures[setup.key];
    overhead[setup.key] = {
      median_ms: f.median_ms - baseline.median_ms,
      p95_ms: f.p95_ms - baseline.p95_ms,
      paired_median_ms: summarize(setup.times.map((t, i) => t - base.times[i])).p50,
    };
  }
  return {
    figures,
    overhead,
    times_ms: Object.fromEntries(setups.map((s) => [s.key, s.times])),
  };
}

/** `+12 ms`, `-3.4 ms`. */
export function signedMs(ms: number): string {
  return ms < 0 ? `-${formatMs(-ms)}` : `+${formatMs(ms)}`;
}

/** A timing line: `<prefix>: <label> median … p95 … (min …, max …, N runs)`. */
export function timingLine(prefix: string, label: string, f: TimingFigure): string {
  return `${prefix}: ${label.padEnd(28)} median ${formatMs(f.median_ms).padStart(8)}  p95 ${
    formatMs(f.p95_ms).padStart(8)
  }  (min ${formatMs(f.min_ms)}, max ${formatMs(f.max_ms)}, ${f.runs} runs)`;
}

/** The lines of a paired summary: each setup's timing, then each overhead. */
export function summaryLines(
  prefix: string,
  setups: readonly Pick<AgentSetup, "key" | "label">[],
  summary: PairedSummary,
): string[] {
  const lines = setups.map((s) => timingLine(prefix, s.label, summary.figures[s.key]));
  for (const setup of setups.slice(1)) {
    const d = summary.overhead[setup.key];
    lines.push(
      `${prefix}: overhead per session, ${setup.label}: median ${signedMs(d.median_ms)}, p95 ${
        signedMs(d.p95_ms)
      }, paired median ${signedMs(d.paired_median_ms)}`,
    );
  }
  return lines;
}

/**
 * Measures `setups` (the first without kiro-learn) in interleaved rounds beside `options.hogs`
 * busy processes, checks every hooked session reached its collector, prints the summary under
 * `prefix`, and disposes of every sandbox. Returns the summary with the load and the collectors'
 * figures.
 */
export async function measureSetups<S extends AgentSetup>(
  prefix: string,
  setups: readonly S[],
  options: AgentBenchOptions & {
    session: (setup: S, measured: boolean) => Promise<number>;
  },
): Promise<
  PairedSummary & {
    load: LoadFigure;
    hogs: number;
    collectors: Record<string, CollectorFigure>;
  }
> {
  try {
    const load = { before: Deno.loadavg()[0], after: 0 };
    {
      await using _hogs = startHogs(options.hogs);
      await interleave(setups, options, options.session);
      load.after = Deno.loadavg()[0];
    }
    const collectors: Record<string, CollectorFigure> = {};
    for (const setup of setups) {
      if (!setup.hooks) continue;
      const figure = await recordedPrompts(setup, options.runs + options.warmup);
      collectors[setup.key] = figure;
      const hook = figure.fast_path_hooks;
      console.log(
        `${prefix}: ${setup.label}: ${figure.prompts} prompts recorded; fast-path hook firings ${
          hook?.count ?? 0
        } (collector side p50 ${hook?.p50 ?? "-"} ms, p95 ${hook?.p95 ?? "-"} ms)`,
      );
    }
    const summary = pairedSummary(setups);
    for (const line of summaryLines(prefix, setups, summary)) console.log(line);
    console.log(
      `${prefix}: ${options.hogs} busy process(es), load ${load.before.toFixed(2)} → ${
        load.after.toFixed(2)
      }`,
    );
    return { ...summary, load, hogs: options.hogs, collectors };
  } finally {
    for (const setup of setups) await setup.box[Symbol.asyncDispose]();
  }
}

/**
 * Runs a benchmark's script (`--out` added) in a child process whose TMPDIR is a folder of its
 * own, so its sandboxes go there and what it leaves shows; returns its figures and the names left
 * in that folder, which is then removed. A child, not this process with TMPDIR changed: the
 * environment is the whole process's, and test modules running beside it would make their own
 * temp dirs in that folder.
 */
export async function benchInChild(
  script: URL,
  args: readonly string[],
): Promise<{ figures: Record<string, unknown>; left: string[] }> {
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-bench-tmp-" });
  const out = await Deno.makeTempFile({ prefix: "kiro-learn-bench-figures-", suffix: ".json" });
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script.pathname, ...args, `--out=${out}`],
      env: { TMPDIR: tmp, TMP: tmp, TEMP: tmp },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    if (!run.success) {
      throw new Error(`${script.pathname} failed: ${decode(run.stderr)}${decode(run.stdout)}`);
    }
    const figures = JSON.parse(await Deno.readTextFile(out)) as Record<string, unknown>;
    return { figures, left: [...Deno.readDirSync(tmp)].map((e) => e.name) };
  } finally {
    await Deno.remove(tmp, { recursive: true });
    await Deno.remove(out);
  }
}

/** A client's benchmark (Codex CLI, Gemini CLI): its setups and how one session runs. */
export interface ClientBench<Box extends AgentSandbox> {
  /** The prefix of its lines on stdout. */
  prefix: string;
  /** Its setups, the one without kiro-learn first. */
  specs: readonly SetupSpec<Box>[];
  /** Makes a fresh sandbox for the client. */
  sandbox: () => Promise<Box>;
  /** The scripted model's recorded requests (to see which sessions were offered our tools). */
  requests: readonly ModelRequest[];
  /** Runs one session; returns null when it went as scripted, else what it printed. */
  run: (setup: AgentSetup<Box>) => Promise<string | null>;
  /** What the figures are of (session, client version), added to them. */
  about: Record<string, unknown>;
}

/**
 * Runs a client's benchmark: its setups in interleaved rounds, each session timed whole and
 * checked (it answered as scripted; the model was offered kiro-learn's memory tools exactly in
 * the setups with the MCP entry). Returns the figures.
 */
export async function benchClient<Box extends AgentSandbox>(
  bench: ClientBench<Box>,
  options: AgentBenchOptions,
): Promise<Record<string, unknown>> {
  const setups = await makeSetups<AgentSetup<Box>>(
    chosenSetups(bench.specs, options.setups).map((spec) => async () =>
      makeSetup(await bench.sandbox(), spec)
    ),
  );
  const session = async (setup: AgentSetup<Box>): Promise<number> => {
    const seen = bench.requests.length;
    const started = performance.now();
    const failed = await bench.run(setup);
    const ms = performance.now() - started;
    if (failed !== null) {
      throw new Error(`a ${bench.prefix} session of "${setup.label}" failed: ${failed}`);
    }
    const offered = bench.requests.slice(seen).some((r) =>
      JSON.stringify(r.body?.tools ?? []).includes("search_memory")
    );
    if (offered !== setup.mcp) {
      throw new Error(
        `a "${setup.label}" session was ${offered ? "" : "not "}offered kiro-learn's memory ` +
          "tools, so the figures would not measure the setup; check `kiro-learn doctor`",
      );
    }
    return ms;
  };
  const { figures, ...rest } = await measureSetups(bench.prefix, setups, { ...options, session });
  return {
    ...figures,
    ...rest,
    ...bench.about,
    deno: Deno.version.deno,
    quick: options.quick,
    at: new Date().toISOString(),
  };
}

/**
 * What is wrong with a benchmark's figures of `runs` rounds of `specs` (for its smoke test): a
 * setup without its runs, an overhead missing or extra, a hooked setup whose sessions did not all
 * reach its collector.
 */
export function figureProblems(
  figures: Record<string, unknown>,
  specs: readonly Pick<SetupSpec<AgentSandbox>, "key" | "hooks">[],
  sessions: number,
): string[] {
  const problems: string[] = [];
  for (const spec of specs) {
    const runs = (figures[spec.key] as TimingFigure | undefined)?.runs;
    if (runs !== sessions) problems.push(`${spec.key}: ${runs} runs`);
  }
  const overheads = Object.keys((figures.overhead ?? {}) as object).sort().join(",");
  const others = specs.slice(1).map((s) => s.key).sort().join(",");
  if (overheads !== others) problems.push(`overheads of ${overheads}, not of ${others}`);
  const collectors = (figures.collectors ?? {}) as Record<string, CollectorFigure>;
  const hooked = specs.filter((s) => s.hooks).map((s) => s.key).sort().join(",");
  if (Object.keys(collectors).sort().join(",") !== hooked) {
    problems.push(`collector figures of ${Object.keys(collectors)}, not of ${hooked}`);
  }
  for (const [key, c] of Object.entries(collectors)) {
    if (c.prompts !== sessions) problems.push(`${key}: ${c.prompts} prompts recorded`);
  }
  return problems;
}

/**
 * The command-line entry of a client's benchmark: its options from `args` (see
 * {@linkcode agentBenchOptions}), its figures to `.bench/<name>.json` (or `--out`).
 */
export async function benchMain(
  name: string,
  args: readonly string[],
  bench: (options: AgentBenchOptions) => Promise<Record<string, unknown>>,
): Promise<void> {
  const options = agentBenchOptions(args);
  const out = figuresPath(args, name, options);
  await writeFigures(out, await bench(options));
  console.log(`${name}: wrote ${out}`);
}
