/**
 * ACP agent start benchmark: what one LLM session of the collector costs before the model says
 * anything, with `claude-code-acp` (the version `prepare.ts` pins and installs) as the agent. Each
 * run is one whole session as the collector runs it (`runAcpPrompt`: spawn, `initialize`,
 * `session/new`, one extraction prompt, the reply, the agent's process group ended), in the data
 * dir's agent folder, against the scripted model on loopback answering `<skip/>` at once: so the
 * time is the agent's own start and turn, not a model's thinking. This is the least any
 * extraction, judge or compaction timeout must allow (`extraction.timeoutMs` and the others:
 * their floor, `AGENT_TIMEOUT_MIN_MS`, comes from these figures).
 *
 * Two kinds of run, interleaved: in a fresh HOME (Claude Code's first start: it writes its config)
 * and in one HOME reused by every run (as the collector's agent runs, in the user's HOME).
 * `--hogs=N` runs N busy-looping processes throughout, as a loaded machine would.
 *
 * Not part of the default `deno task bench` run (it needs the client): run it with
 * `deno task bench acp-start`, or `deno run -A collector/tooling/bench/acp_start_bench.ts
 * [--runs=N] [--hogs=N] [--out=<path>]`. Figures go to stdout and to `.bench/acp-start.json`
 * (`acp-start-hogs<N>.json` with `--hogs=N`).
 *
 * @module
 */
import { formatMs, type TimingFigure, timingFigure } from "@kiro-learn/core/testing";
import { dataPaths } from "@kiro-learn/core/settings";
import { extractionPrompt } from "../../daemon/extraction/mod.ts";
import { prepareAgentWorkdir, runAcpPrompt } from "../../daemon/llm/mod.ts";
import { CLAUDE_CODE_ACP, npmToolBin, scriptedExtractionModel } from "../testing/mod.ts";
import { startHogs } from "./agent_bench.ts";

/** What the benchmark measured. */
export interface AcpStartFigures {
  /** The agent and its version. */
  agent: string;
  /** Busy-looping processes that ran throughout. */
  hogs: number;
  /** The machine's one-minute load average before and after the runs. */
  load: { before: number; after: number };
  /** Whole sessions, each in a fresh HOME (Claude Code's first start). */
  fresh_home: TimingFigure;
  /** Whole sessions in one HOME reused by every run. */
  same_home: TimingFigure;
}

/** Options for {@linkcode measureAcpStart}. */
export interface AcpStartOptions {
  /** Runs of each kind. */
  runs: number;
  /** Busy-looping processes to run throughout. */
  hogs: number;
}

/** Runs the benchmark; every process and folder it made is gone when it returns. */
export async function measureAcpStart(options: AcpStartOptions): Promise<AcpStartFigures> {
  const agent = npmToolBin(CLAUDE_CODE_ACP);
  const model = scriptedExtractionModel([{ text: "<skip/>" }]);
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-acp-start-" });
  await using _hogs = startHogs(options.hogs);
  const fresh: number[] = [];
  const same: number[] = [];
  const load = { before: Deno.loadavg()[0], after: 0 };
  try {
    const workdir = prepareAgentWorkdir(dataPaths(`${root}/data`).agentWorkdir);
    const prompt = extractionPrompt(
      '<tool_observation kind="tool_use" surface="claude-code">Edited src/a.ts</tool_observation>',
    );
    const session = async (home: string) => {
      await Deno.mkdir(home, { recursive: true });
      const result = await runAcpPrompt([agent], prompt, {
        timeoutMs: 120_000,
        cwd: workdir.cwd,
        env: { ...workdir.env, ...model.env, HOME: home },
      });
      if (result.text.trim() !== "<skip/>") {
        throw new Error(`unexpected reply from the agent: ${result.text}`);
      }
      return result.duration_ms;
    };
    for (let i = 0; i < options.runs; i++) {
      fresh.push(await session(`${root}/home-${i}`));
      same.push(await session(`${root}/home`));
    }
  } finally {
    load.after = Deno.loadavg()[0];
    await model[Symbol.asyncDispose]();
    await Deno.remove(root, { recursive: true });
  }
  return {
    agent: `${CLAUDE_CODE_ACP.name}@${CLAUDE_CODE_ACP.version}`,
    hogs: options.hogs,
    load,
    fresh_home: timingFigure(fresh),
    same_home: timingFigure(same),
  };
}

function line(what: string, figure: TimingFigure): string {
  return `${what}: median ${formatMs(figure.median_ms)}, p95 ${formatMs(figure.p95_ms)}, ` +
    `min ${formatMs(figure.min_ms)}, max ${formatMs(figure.max_ms)} (${figure.runs} runs)`;
}

if (import.meta.main) {
  const option = (name: string, fallback: number) =>
    Number(Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
  const runs = option("runs", 10);
  const hogs = option("hogs", 0);
  const out = Deno.args.find((a) => a.startsWith("--out="))?.slice(6) ??
    new URL(`../../../.bench/acp-start${hogs > 0 ? `-hogs${hogs}` : ""}.json`, import.meta.url)
      .pathname;
  const figures = await measureAcpStart({ runs, hogs });
  console.log(
    `${figures.agent}, one whole session (spawn to reply, model answering at once), ` +
      `${hogs} busy process(es), load ${figures.load.before.toFixed(1)} → ` +
      `${figures.load.after.toFixed(1)}`,
  );
  console.log(line("  fresh HOME", figures.fresh_home));
  console.log(line("  same HOME ", figures.same_home));
  await Deno.mkdir(new URL(".", `file://${out}`).pathname, { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(figures, null, 2) + "\n");
}
