// Extraction through the real collector with a REAL ACP agent: `claude-code-acp` (Claude Code
// behind the Agent Client Protocol, installed at its pinned version by prepare.ts), its model a
// scripted Anthropic Messages API server on loopback. The scripted stand-in agent covers fault
// injection (service_test.ts); this is the evidence that a real agent works end to end.
import assert from "node:assert/strict";
import { makeFsWriteEvent, runGit, seedRepo, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { currentActor, resolveProject } from "@kiro-learn/core/project";
import type { Event } from "@kiro-learn/core/schemas";
import { AGENT_ENV_DEFAULT, AGENT_TIMEOUT_MIN_MS } from "@kiro-learn/core/settings";
import {
  CLAUDE_CODE_ACP,
  commandLine,
  type ExtractionModelStep,
  freePort,
  npmToolBin,
  postJson,
  processesWithEnv,
  processText,
  runKiroLearn,
  type ScriptedExtractionModel,
  scriptedExtractionModel,
  startTestDaemon,
  type TestDaemon,
  waitFor,
} from "../../tooling/testing/mod.ts";

const PROJECT = TEST_NAMESPACE.split("/")[4];
const AGENT = npmToolBin(CLAUDE_CODE_ACP);

const VALID = `<memory_record type="decision">
<title>Queue lives in SQLite</title>
<summary>The extraction queue is a table so snapshots and commits are atomic.</summary>
<facts><fact>commit and delete share one transaction</fact></facts>
<concepts><concept>queue</concept></concepts>
<files><file>core/storage/sqlite.ts</file></files>
</memory_record>`;

function toolEvent(n: number): Event {
  return makeFsWriteEvent({
    command: "create",
    path: `src/file_${n}.ts`,
    file_text: "x".repeat(200),
  });
}

/** A scripted model, a collector whose extraction agent is claude-code-acp, and a marker. */
async function setUp(
  steps: ExtractionModelStep[],
  extraction: Record<string, unknown> = {},
  options: { modelDown?: boolean; cwd?: string } = {},
) {
  try {
    Deno.statSync(AGENT);
  } catch {
    throw new Error(
      `the real ACP agent is missing at ${AGENT}: run \`deno task test\` (its prepare step ` +
        `installs ${CLAUDE_CODE_ACP.name}@${CLAUDE_CODE_ACP.version} with npm)`,
    );
  }
  const model = scriptedExtractionModel(steps);
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-claude-home-" });
  // Every process the agent starts inherits this, so /proc tells what is left of it.
  const marker = `KIRO_LEARN_TEST_AGENT=${crypto.randomUUID()}`;
  // Claude Code keeps runtime files in the temp dir (`claude-<uid>`, `cc-socks`): the agent's
  // is inside its HOME, removed with it.
  const tmp = `${home}/tmp`;
  await Deno.mkdir(tmp);
  const daemon = await startTestDaemon({
    disposeAfter: { [Symbol.asyncDispose]: () => Deno.remove(home, { recursive: true }) },
    settings: {
      extraction: {
        strategy: "acp",
        agentCommand: [AGENT],
        idleMs: 60_000,
        sizeThresholdBytes: 16_777_216,
        maxAttempts: 1,
        timeoutMs: 60_000,
        // The agent gets only these: the defaults (PATH, HOME, ANTHROPIC_*, ...), what the
        // scripted model's Claude Code needs, and the marker that finds its processes.
        agentEnv: [
          ...AGENT_ENV_DEFAULT,
          ...Object.keys(model.env),
          marker.split("=")[0],
        ],
        ...extraction,
      },
      compaction: { enabled: false },
      reconciliation: { enabled: false },
    },
    env: {
      ...model.env,
      // A loopback port nobody listens on: the model is down.
      ...(options.modelDown ? { ANTHROPIC_BASE_URL: `http://127.0.0.1:${freePort()}` } : {}),
      HOME: home,
      TMPDIR: tmp,
      [marker.split("=")[0]]: marker.split("=")[1],
    },
    cwd: options.cwd,
  });
  return {
    model,
    daemon,
    home,
    /** Live processes of the agent (the collector carries the marker too, and is left out). */
    agentProcesses: () =>
      processesWithEnv(...markerEntry(marker)).filter((pid) => pid !== daemon.pid()),
    async [Symbol.asyncDispose]() {
      try {
        await daemon[Symbol.asyncDispose](); // and HOME after it
      } finally {
        await model[Symbol.asyncDispose]();
      }
    },
  };
}

/** Each live process: its pid, state, parent, process group and command line. */
function left(pids: number[]): string {
  return pids.map((pid) => {
    let stat = "";
    try {
      stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    } catch {
      return `${pid} (gone)`;
    }
    const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return `${pid} state ${state} ppid ${ppid} pgid ${pgid}: ${commandLine(pid)}`;
  }).join("; ");
}

async function post(daemon: TestDaemon, events: Event[]): Promise<void> {
  for (const e of events) await postJson(daemon, "/v1/events", e).then((r) => r.body?.cancel());
}

async function flush(daemon: TestDaemon): Promise<void> {
  const res = await daemon.fetch(`/v1/extraction/flush?project_id=${PROJECT}`, { method: "POST" });
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

async function lastRun(daemon: TestDaemon) {
  return (await (await daemon.fetch("/v1/runs?limit=1")).json()).items[0];
}

async function queueRows(daemon: TestDaemon): Promise<number> {
  const stats = await (await daemon.fetch("/v1/stats")).json();
  return (stats.queue as { rows: number }[]).reduce((n, q) => n + q.rows, 0);
}

async function memoryTitles(daemon: TestDaemon): Promise<string[]> {
  const page = await (await daemon.fetch("/v1/memories?limit=50")).json();
  return page.items.map((r: { title: string; strategy: string }) => `${r.strategy}: ${r.title}`);
}

/** `NAME=value` as the two arguments of `processesWithEnv`. */
function markerEntry(marker: string): [string, string] {
  const at = marker.indexOf("=");
  return [marker.slice(0, at), marker.slice(at + 1)];
}

/**
 * Waits until no process of the agent is left: its group is signalled when the run ends, and
 * the kernel takes a moment to reap it (a hang guard of 10 s, "gone within seconds").
 */
async function noAgentLeft(env: { agentProcesses(): number[] }, what: string): Promise<void> {
  try {
    await waitFor(() => Promise.resolve(env.agentProcesses().length === 0 || undefined), {
      timeoutMs: 10_000,
      what,
    });
  } catch {
    // Say what is still there: state, parent, group and command line of each.
    throw new Error(`${what}: ${left(env.agentProcesses())}`);
  }
}

function extractionRequests(model: ScriptedExtractionModel) {
  return model.requests().filter((r) => r.scripted);
}

Deno.test("real ACP agent: a batch of events becomes records, and the compressor's instructions reach the model", async () => {
  await using env = await setUp([{ text: VALID }]);
  await post(env.daemon, [toolEvent(1), toolEvent(2), toolEvent(3)]);
  await flush(env.daemon);
  const run = await lastRun(env.daemon);
  assert.equal(run.outcome, "ok", `run: ${JSON.stringify(run)}`);
  assert.deepEqual(await memoryTitles(env.daemon), ["llm-summary: Queue lives in SQLite"]);
  assert.equal(await queueRows(env.daemon), 0);
  // What crossed the wire: Claude Code's own system prompt and tools, and, in the user turn, our
  // compressor's instructions with the observations.
  const [request] = extractionRequests(env.model);
  assert.ok(request, "the model received the extraction request");
  const body = JSON.stringify(request.body);
  assert.match(body, /You are kiro-learn-compressor/, "the compressor's instructions");
  assert.match(body, /src\/file_2\.ts/, "the observations");
  await noAgentLeft(env, "agent processes left after the run");
});

Deno.test("real ACP agent: the lowest timeout the settings allow is enough for it to start and answer", async () => {
  // A model that answers at once: the whole time is the agent's own start and turn (11.5–21.2 s
  // on two cores at load 14–21; `deno task bench acp-start`). The old floor, 5 s, timed it out.
  await using env = await setUp([{ text: VALID }], { timeoutMs: AGENT_TIMEOUT_MIN_MS });
  await post(env.daemon, [toolEvent(1)]);
  await flush(env.daemon);
  const run = await lastRun(env.daemon);
  assert.equal(run.outcome, "ok", `run: ${JSON.stringify(run)}`);
  assert.deepEqual(await memoryTitles(env.daemon), ["llm-summary: Queue lives in SQLite"]);
  await noAgentLeft(env, "agent processes left after the run");
});

Deno.test("real ACP agent: a garbage reply keeps the batch queued and fails the run with the reason", async () => {
  await using env = await setUp([{ text: "Sure! I looked at the files and they seem fine." }]);
  await post(env.daemon, [toolEvent(1), toolEvent(2)]);
  await flush(env.daemon);
  const run = await lastRun(env.daemon);
  assert.equal(run.outcome, "failed");
  assert.equal(run.strategy, "acp");
  assert.match(run.error, /garbage reply/);
  assert.equal(await queueRows(env.daemon), 2, "no event consumed for nothing");
  assert.deepEqual(await memoryTitles(env.daemon), []);
  await noAgentLeft(env, "agent processes left after the garbage reply");
});

Deno.test("real ACP agent: a model that hangs times out, and nothing of the agent is left", async () => {
  await using env = await setUp([{ hang: true }], { timeoutMs: 30_000 });
  await post(env.daemon, [toolEvent(1)]);
  await flush(env.daemon);
  assert.equal(extractionRequests(env.model).length, 1, "the agent reached the model");
  const run = await lastRun(env.daemon);
  assert.equal(run.outcome, "failed");
  assert.match(run.error, /did not answer within 30000 ms/);
  assert.equal(await queueRows(env.daemon), 1);
  // Claude Code's own process (and anything else the agent started) went with it.
  await noAgentLeft(env, "agent processes left after the timeout");
});

Deno.test("real ACP agent: with the model down it times out, the batch stays queued, nothing is left", async () => {
  await using env = await setUp([{ text: VALID }], { timeoutMs: 30_000 }, { modelDown: true });
  await post(env.daemon, [toolEvent(1)]);
  await flush(env.daemon);
  const run = await lastRun(env.daemon);
  assert.equal(run.outcome, "failed");
  // The handshake worked; Claude Code kept retrying the model until our deadline.
  assert.match(run.error, /did not answer within 30000 ms \(waiting on session\/prompt\)/);
  assert.equal(await queueRows(env.daemon), 1);
  await noAgentLeft(env, "agent processes left after the timeout");
});

Deno.test("real ACP agent: an agent that dies mid-turn fails the run with the reason", async () => {
  await using env = await setUp([{ hang: true }]);
  await post(env.daemon, [toolEvent(1)]);
  const flushed = flush(env.daemon);
  await waitFor(() => Promise.resolve(extractionRequests(env.model).length > 0 || undefined), {
    timeoutMs: 60_000,
    what: "the agent's request to the model",
  });
  // The agent is the collector's child that carries the marker; kill it as a crash would.
  const agent = env.agentProcesses().find((pid) => {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === env.daemon.pid();
  });
  assert.ok(agent, "the agent process");
  Deno.kill(agent, "SIGKILL");
  await flushed;
  const run = await lastRun(env.daemon);
  assert.equal(run.outcome, "failed");
  assert.match(run.error, /was killed by SIGKILL before answering/);
  assert.equal(await queueRows(env.daemon), 1);
  await noAgentLeft(env, "the dead agent's children were left");
});

/** Every file and folder under `dir` whose path or content holds one of `needles`. */
async function mentioning(dir: string, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = `${at}/${entry.name}`;
      if (needles.some((n) => path.includes(n))) found.push(path);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        const text = await Deno.readTextFile(path).catch(() => "");
        if (needles.some((n) => text.includes(n))) found.push(`${path} (content)`);
      }
    }
  };
  await walk(dir);
  return found;
}

Deno.test("real ACP agent: runs in the data dir's agent folder, never in the collector's project: no transcript, no git status, nothing to import", async () => {
  // The collector runs in a real repository (as under `deno task serve`, or auto-started by a
  // hook in a project): a branch and an uncommitted file that a git status would show.
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-agent-cwd-" }));
  const project = await seedRepo(`${root}/shop-api`);
  await runGit(project, "remote", "add", "origin", "https://github.com/example/shop-api.git");
  const branch = `feature-${crypto.randomUUID().slice(0, 8)}`;
  await runGit(project, "checkout", "-q", "-b", branch);
  const dirty = `uncommitted-${crypto.randomUUID().slice(0, 8)}.txt`;
  await Deno.writeTextFile(`${project}/${dirty}`, "work in progress\n");
  try {
    await using env = await setUp([{ text: VALID }], {}, { cwd: project });
    await post(env.daemon, [toolEvent(1), toolEvent(2)]);
    await flush(env.daemon);
    const run = await lastRun(env.daemon);
    assert.equal(run.outcome, "ok", `run: ${JSON.stringify(run)}`);
    assert.equal(extractionRequests(env.model).length, 1, "the agent reached the model");

    // Claude Code's files (transcripts, its per-project config, caches) name no project folder.
    const encoded = project.replace(/[^a-zA-Z0-9]/g, "-");
    assert.deepEqual(await mentioning(env.home, [project, encoded]), []);
    // The agent folder: the data dir's own, private, no repository.
    const workdir = Deno.statSync(`${env.daemon.dataDir}/agent-workdir`);
    assert.ok(workdir.isDirectory);
    assert.equal(workdir.mode! & 0o777, 0o700);
    assert.throws(() => Deno.statSync(`${env.daemon.dataDir}/agent-workdir/.git`));

    // Nothing of the project reached the model: not its path, branch or status.
    for (const request of env.model.requests()) {
      const body = JSON.stringify(request.body);
      for (const secret of [project, branch, dirty, "shop-api"]) {
        assert.ok(!body.includes(secret), `a request to the model carries ${secret}`);
      }
      assert.doesNotMatch(body, /gitStatus|Current branch/);
    }

    // And `import claude-code` in the collector's folder finds no session to take.
    const imported = await runKiroLearn(["import", "claude-code"], {
      env: { ...env.daemon.env, HOME: env.home },
      cwd: project,
    });
    assert.equal(imported.code, 0, processText(imported));
    assert.match(processText(imported), /no Claude Code sessions of/);
    const namespace = resolveProject(project, { actor: currentActor(), home: env.home }).namespace;
    const events = await (await env.daemon.fetch(`/v1/events?limit=5&namespace=${namespace}`))
      .json();
    assert.equal(events.items.length, 0, "no event imported into the collector's project");
    await noAgentLeft(env, "agent processes left after the run");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
