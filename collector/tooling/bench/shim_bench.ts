/**
 * Shim benchmark: whole-process latency of a shim, as an agent pays it (spawn, module load,
 * settings, project detection, POST, exit), against a real collector.
 *
 * - startup floor: empty stdin, so the shim loads, reads settings and exits without posting;
 * - tool-use hook: a Kiro CLI `postToolUse` (`fs_read`), store only;
 * - the same through the launcher `install` writes (`<data dir>/bin/hook-kiro-cli`, a shell
 *   script that finds the project root and execs the shim): what an installed hook costs;
 * - prompt hook: a Kiro CLI `userPromptSubmit` with inline retrieval, the project's namespace
 *   seeded with 10k memory records (1k with `--quick`);
 * - Claude Code's tool-use and prompt hooks through their installed launcher, which posts the raw
 *   payload over the collector's Unix socket with curl (its fast path; no Deno process). The
 *   tool-use hook only stores, so its launcher posts in the background and exits once it has read
 *   the payload: its figure is what Claude Code waits, not the delivery.
 *
 * Run: `deno run -A collector/tooling/bench/shim_bench.ts [--quick] [--out=<path>]`. Figures go to stdout
 * and to `.bench/shims.json` (`.bench/shims-quick.json` with `--quick`).
 *
 * @module
 */
import { TURN_TOOLS_ARG } from "@kiro-learn/core/hooks";
import { hookLauncherScript } from "@kiro-learn/core/launch";
import { resolveProject } from "@kiro-learn/core/project";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import {
  formatMs,
  generateQueries,
  generateRecords,
  runGit,
  type TimingFigure,
  timingFigure,
} from "@kiro-learn/core/testing";
import { processesWithEnv, startTestDaemon, waitFor } from "../testing/mod.ts";
import { fixtureText, makeProject, runShimProcess, spoolFiles } from "@kiro-learn/shims/testing";

const quick = Deno.args.includes("--quick");
const out = Deno.args.find((a) => a.startsWith("--out="))?.slice(6) ??
  new URL(`../../../.bench/shims${quick ? "-quick" : ""}.json`, import.meta.url).pathname;
const RUNS = quick ? 8 : 40;
const WARMUP = quick ? 1 : 3;
const RECORDS = quick ? 1000 : 10_000;
const ACTOR = "bench";

async function measure(
  label: string,
  run: (i: number) => Promise<{ code: number; ms: number; stdout: string }>,
): Promise<TimingFigure & { with_context: number }> {
  for (let i = 0; i < WARMUP; i++) await run(-1 - i);
  const times: number[] = [];
  let withContext = 0;
  for (let i = 0; i < RUNS; i++) {
    const result = await run(i);
    if (result.code !== 0) throw new Error(`${label}: shim exited ${result.code}`);
    if (result.stdout.trim() !== "") withContext++;
    times.push(result.ms);
  }
  const f = timingFigure(times);
  console.log(
    `shim: ${label.padEnd(34)} median ${formatMs(f.median_ms).padStart(6)}  p95 ${
      formatMs(f.p95_ms).padStart(6)
    }` +
      `  (min ${formatMs(f.min_ms)}, max ${formatMs(f.max_ms)}, ${RUNS} runs)`,
  );
  return { ...f, with_context: withContext };
}

/** Runs the benchmark; returns the figures written to `out`. */
export async function benchShims(): Promise<Record<string, unknown>> {
  await using daemon = await startTestDaemon({
    settings: {
      extraction: { strategy: "heuristic", idleMs: 300_000, sizeThresholdBytes: 16_777_216 },
      compaction: { enabled: false },
    },
  });
  const project = await makeProject();
  try {
    // A real repository with a remote: the hooks' fast path sends its git config, whose remote
    // decides the project id (without a config file, curl fails and the shim takes over).
    await runGit(project, "init", "-q");
    await runGit(project, "remote", "add", "origin", "git@git.example.com:team/bench.git");
    const { namespace } = resolveProject(project, { actor: ACTOR });
    const storage = openSqliteStorage(`${daemon.dataDir}/kiro-learn.db`);
    const records = generateRecords(RECORDS, { seed: 1, namespace });
    for (let i = 0; i < records.length; i += 1000) {
      await storage.commitExtraction({
        consumedSeqs: [],
        records: records.slice(i, i + 1000).map((record) => ({ record })),
      });
    }
    storage.close();
    const queries = generateQueries(RUNS + WARMUP, { seed: 2 });
    const run = (stdin: string) =>
      runShimProcess("kiro-cli", {
        settings: daemon.settings,
        env: { ...daemon.env, USER: ACTOR },
        cwd: project,
        stdin,
      });
    const toolUse = fixtureText("kiro_cli/post_tool_use_fs_read.json", project);
    const startup = await measure("startup floor (no post)", () => run(""));
    const tool = await measure("tool-use hook", () => run(toolUse));
    const launcher = `${daemon.dataDir}/hook-kiro-cli`;
    await Deno.writeTextFile(
      launcher,
      hookLauncherScript("kiro-cli", { settings: daemon.settings, preferCompiled: false }),
      { mode: 0o700 },
    );
    const installed = await measure(
      "tool-use hook, installed launcher",
      () => runLauncher(launcher, { cwd: project, env: { ...daemon.env, USER: ACTOR }, toolUse }),
    );
    const prompt = await measure(
      `prompt hook, retrieval at ${RECORDS / 1000}k records`,
      (i) =>
        run(JSON.stringify({
          hook_event_name: "userPromptSubmit",
          cwd: project,
          prompt: queries[(i + queries.length) % queries.length].text,
        })),
    );
    console.log(`shim: ${prompt.with_context}/${RUNS} prompts got context`);
    const claude = `${daemon.dataDir}/hook-claude-code`;
    await Deno.writeTextFile(
      claude,
      hookLauncherScript("claude-code", { settings: daemon.settings, preferCompiled: false }),
      { mode: 0o700 },
    );
    const claudeEnv = { ...daemon.env, USER: ACTOR };
    const claudeTool = await measure(
      "Claude Code tool-use hook, fast path",
      () =>
        runLauncher(claude, {
          cwd: project,
          env: claudeEnv,
          toolUse: fixtureText("claude_code/post_tool_use_bash.json", project),
        }),
    );
    const claudePrompt = await measure(
      `Claude Code prompt hook, fast path, ${RECORDS / 1000}k`,
      (i) =>
        runLauncher(claude, {
          cwd: project,
          env: claudeEnv,
          toolUse: JSON.stringify({
            session_id: "bench",
            hook_event_name: "UserPromptSubmit",
            cwd: project,
            prompt: queries[(i + queries.length) % queries.length].text,
          }),
        }),
    );
    console.log(`shim: ${claudePrompt.with_context}/${RUNS} Claude Code prompts got context`);
    const agents = await benchAgents(daemon, { project, queries });
    return {
      ...agents,
      startup_floor: startup,
      tool_use_hook: tool,
      tool_use_hook_installed: installed,
      prompt_hook: { ...prompt, records: RECORDS },
      claude_code_tool_use_hook_fast_path: claudeTool,
      claude_code_prompt_hook_fast_path: { ...claudePrompt, records: RECORDS },
      runner: "deno run (no compiled shims)",
      deno: Deno.version.deno,
      quick,
      at: new Date().toISOString(),
    };
  } finally {
    await Deno.remove(project, { recursive: true });
  }
}

/**
 * Codex CLI's and Gemini CLI's hooks, each through its installed launcher (the fast path) and as
 * a `deno run` of its shim (what every firing cost before): the prompt hook (retrieval) and the
 * turn's end (which reads the turn's tool uses from the agent's own file: the launcher hands it
 * to the shim in the background, so its figure is what the agent waits).
 */
async function benchAgents(
  daemon: Awaited<ReturnType<typeof startTestDaemon>>,
  options: { project: string; queries: { text: string }[] },
): Promise<Record<string, unknown>> {
  const { project, queries } = options;
  const env = { ...daemon.env, USER: ACTOR };
  const prompt = (i: number) => queries[(i + queries.length) % queries.length].text;
  // The agents' own files, where their turn ends name them (under the project: the shim may read
  // it, as it may read $HOME where the agents keep them).
  const rollout = `${project}/.home/.codex/sessions/2026/11/29`;
  await Deno.mkdir(rollout, { recursive: true });
  await Deno.writeTextFile(`${rollout}/rollout.jsonl`, fixtureText("codex/rollout.jsonl", project));
  const chat = `${project}/.home/.gemini/tmp/app/chats/session.jsonl`;
  await Deno.mkdir(`${project}/.home/.gemini/tmp/app/chats`, { recursive: true });
  await Deno.writeTextFile(chat, fixtureText("gemini_cli/chat.jsonl", project));
  const fixture = (name: string, fields: Record<string, unknown>) =>
    JSON.stringify({ ...JSON.parse(fixtureText(name, project)), ...fields });
  const rows: [string, "codex" | "gemini-cli", (i: number) => string][] = [
    [
      "Codex prompt hook",
      "codex",
      (i) => fixture("codex/user_prompt_submit.json", { prompt: prompt(i) }),
    ],
    ["Codex turn-end hook", "codex", () => fixture("codex/stop.json", {})],
    [
      "Gemini CLI prompt hook",
      "gemini-cli",
      (i) => fixture("gemini_cli/before_agent.json", { prompt: prompt(i) }),
    ],
    [
      "Gemini CLI turn-end hook",
      "gemini-cli",
      () => fixture("gemini_cli/after_agent.json", { transcript_path: chat }),
    ],
  ];
  const figures: Record<string, unknown> = {};
  for (const [label, surface, payload] of rows) {
    const launcher = `${daemon.dataDir}/hook-${surface}`;
    await Deno.writeTextFile(
      launcher,
      hookLauncherScript(surface, { settings: daemon.settings, preferCompiled: false }),
      { mode: 0o700 },
    );
    const key = label.toLowerCase().replaceAll(" ", "_").replaceAll("-", "_");
    // Taking turns, so that a swing of the machine's load hits both alike.
    const spooled = spoolFiles(daemon.settings.paths.spool).length;
    const routed = await routeFirings(daemon);
    const [fast, deno] = await measurePair([`${label}, fast path`, `${label}, deno run`], [
      (i) => runLauncher(launcher, { cwd: project, env, toolUse: payload(i), settle: true }),
      (i) =>
        runShimProcess(surface, {
          settings: daemon.settings,
          env,
          cwd: project,
          stdin: payload(i),
          // What the launcher's shim is asked at a turn's end: read the agent's file.
          args: [TURN_TOOLS_ARG],
        }),
    ]);
    // A firing the collector did not answer within the launcher's budget is spooled (by either
    // way): what the figures cost includes those.
    const unanswered = spoolFiles(daemon.settings.paths.spool).length - spooled;
    console.log(`shim: ${label}: ${unanswered} firing(s) spooled, not answered in time`);
    // A fast path that fell back to the shim on every firing would measure the shim: the
    // collector counts the firings its hook route answered.
    const answered = await routeFirings(daemon) - routed;
    const expected = label.includes("prompt") ? RUNS + WARMUP - unanswered : 0;
    if (answered < expected) {
      throw new Error(`${label}: the hook route answered ${answered} firings, not ${expected}`);
    }
    figures[`${key}_fast_path`] = fast;
    figures[`${key}_deno_run`] = deno;
    figures[`${key}_spooled`] = unanswered;
  }
  return figures;
}

/** How many hook firings the collector's hook routes answered so far. */
async function routeFirings(daemon: Awaited<ReturnType<typeof startTestDaemon>>): Promise<number> {
  return (await (await daemon.fetch("/v1/stats")).json()).latency.hook.count;
}

type Run = (i: number) => Promise<{ code: number; ms: number; stdout: string }>;

/** {@linkcode measure} for two ways of doing one thing, run in turns (a, b, a, b, …). */
async function measurePair(
  labels: [string, string],
  runs: [Run, Run],
): Promise<(TimingFigure & { with_context: number })[]> {
  const times: number[][] = [[], []];
  const withContext = [0, 0];
  for (let i = -WARMUP; i < RUNS; i++) {
    for (const k of [0, 1]) {
      const result = await runs[k](i);
      if (result.code !== 0) throw new Error(`${labels[k]}: exited ${result.code}`);
      if (i < 0) continue;
      if (result.stdout.trim() !== "") withContext[k]++;
      times[k].push(result.ms);
    }
  }
  return [0, 1].map((k) => {
    const f = timingFigure(times[k]);
    console.log(
      `shim: ${labels[k].padEnd(34)} median ${formatMs(f.median_ms).padStart(6)}  p95 ${
        formatMs(f.p95_ms).padStart(6)
      }  (min ${formatMs(f.min_ms)}, max ${formatMs(f.max_ms)}, ${RUNS} runs, interleaved)`,
    );
    return { ...f, with_context: withContext[k] };
  });
}

// Runs an installed launcher as an agent does: payload on stdin, whole process timed.
async function runLauncher(
  launcher: string,
  options: {
    cwd: string;
    env: Record<string, string>;
    toolUse: string;
    /**
     * Wait (untimed) for what the launcher left in the background (a turn end's shim): the next
     * run must not share the machine with it.
     */
    settle?: boolean;
  },
): Promise<{ code: number; ms: number; stdout: string }> {
  const mark = crypto.randomUUID();
  const started = performance.now();
  const child = new Deno.Command(launcher, {
    cwd: options.cwd,
    env: { ...options.env, [RUN_MARK]: mark },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(options.toolUse));
  await writer.close();
  const output = await child.output();
  const ms = Math.round(performance.now() - started);
  if (options.settle) {
    await waitFor(
      () => Promise.resolve(processesWithEnv(RUN_MARK, mark).length === 0 ? true : undefined),
      { timeoutMs: 60_000, what: `the background delivery of ${launcher} to end` },
    );
  }
  return { code: output.code, ms, stdout: new TextDecoder().decode(output.stdout) };
}

/** Marks the processes of one launcher run, so the benchmark can wait for its background. */
const RUN_MARK = "KIRO_LEARN_BENCH_LAUNCHER_RUN";

if (import.meta.main) {
  const results = await benchShims();
  await Deno.mkdir(new URL(".", `file://${out}`).pathname, { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(results, null, 2) + "\n");
  console.log(`shim: wrote ${out}`);
}
