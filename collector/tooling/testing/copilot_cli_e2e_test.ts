// The real GitHub Copilot CLI, offline against a scripted model, with kiro-learn installed by its
// own installer and a real collector: what the hooks record, what memory reaches the model, and
// that the provider key never reaches kiro-learn's data dir.
import assert from "node:assert/strict";
import { ROUTES } from "@kiro-learn/core/api/wire";
import { resolveProject } from "@kiro-learn/core/project";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  copilotSandbox,
  gitRepository,
  offersTools,
  outputText,
  requestText,
  type ScriptedBlock,
  secretsOnDisk,
  startScriptedModel,
  waitFor,
  waitForOnlyCollector,
} from "./mod.ts";
import { sessionWhileDown } from "./_collector_down.ts";
import { memoryInItsProjectOnly } from "./_memory_sessions.ts";

const SAVED_TITLE = "Listing the fixtures folder fails by design";
const SHARED_TITLE = "Leap-year date parser fix";
const ANSWER = "The listing failed: the fixtures folder does not exist yet.";
const FAILING = "ls ./fixtures-kl";

interface StoredEvent {
  kind: string;
  namespace: string;
  session_id: string;
  body: { content?: string; data?: Record<string, unknown> };
  source: { surface: string; project_path?: string };
}

/** The name Copilot offers one of our MCP tools under. */
function offeredTool(body: Record<string, unknown>, suffix: string): string | undefined {
  const tools = (body.tools ?? []) as { name?: string }[];
  return tools.map((t) => t.name ?? "").find((name) => name.endsWith(suffix));
}

/** How many tool results the turn under way has (since the last prompt that was not one). */
function turnResults(body: Record<string, unknown>): number {
  const messages = (body.messages ?? []) as { role?: string; content?: unknown }[];
  let count = 0;
  for (const message of [...messages].reverse()) {
    if (message.role !== "user") continue;
    const blocks = Array.isArray(message.content) ? message.content as { type?: string }[] : [];
    const n = blocks.filter((b) => b?.type === "tool_result").length;
    if (n === 0) break;
    count += n;
  }
  return count;
}

Deno.test("Copilot CLI (real client): a session is recorded once, memory saved in it and by another agent reaches the next, only in its project", async () => {
  await using box = await copilotSandbox();
  // A key shaped like a real one, new each run: it must be found nowhere on kiro-learn's disk.
  const apiKey = `sk-ant-${crypto.randomUUID().replaceAll("-", "")}`;
  // Session 1: a failing shell call, then our MCP tool saves what was learned, then the answer.
  // Later sessions: the answer only.
  let session = 1;
  await using model = startScriptedModel((body): ScriptedBlock[] => {
    if (!offersTools(body) || session > 1) return [{ type: "text", text: ANSWER }];
    const done = turnResults(body);
    if (done === 0) {
      return [{ type: "tool_use", name: "bash", input: { command: FAILING, description: "list" } }];
    }
    const save = offeredTool(body, "save_observation");
    if (done === 1 && save !== undefined) {
      return [{
        type: "tool_use",
        name: save,
        input: {
          title: SAVED_TITLE,
          summary: "fixtures-kl is created by the setup step; listing it before setup fails " +
            "and is expected, not a regression.",
          observation_type: "discovery",
          concepts: ["fixtures folder"],
        },
      }];
    }
    return [{ type: "text", text: ANSWER }];
  });
  const alpha = await gitRepository(box.root, "alpha");
  const beta = await gitRepository(box.root, "beta");

  // The user's own MCP server, as `copilot mcp add` writes it (disabled: it is not started).
  const mcpConfig = `${box.home}/.copilot/mcp-config.json`;
  await Deno.mkdir(`${box.home}/.copilot`, { recursive: true });
  const userMcp = JSON.stringify(
    {
      mcpServers: {
        notes: { tools: ["*"], type: "local", command: "/bin/false", args: [], disabled: true },
      },
    },
    null,
    2,
  );
  await Deno.writeTextFile(mcpConfig, userMcp);
  const installed = await box.kiroLearn(["install"], alpha);
  assert.equal(installed.code, 0, outputText(installed));
  // Its memory tools come from the sh relay to the collector's MCP route, not a Deno process.
  const entry = JSON.parse(await Deno.readTextFile(mcpConfig)).mcpServers["kiro-learn-memory"];
  assert.match(entry.args.join(" "), /\/bin\/mcp-relay$/, JSON.stringify(entry));
  assert.match(
    outputText(installed),
    /Copilot CLI hooks \(userPromptSubmitted, agentStop\)/,
  );
  const started = await box.kiroLearn(["start"], alpha);
  assert.equal(started.code, 0, outputText(started));
  const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${box.port}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    });
  const eventsOf = async (namespace: string) => {
    const res = await api(`${ROUTES.events}?limit=200`);
    return ((await res.json()).items as StoredEvent[]).filter((e) => e.namespace === namespace);
  };

  // Session 1 in alpha.
  const first = await box.copilot("List the fixtures folder and tell me why it fails", {
    cwd: alpha,
    modelUrl: model.url,
    apiKey,
  });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.match(first.stdout, new RegExp(ANSWER));
  assert.doesNotMatch(first.stderr, /hook/i, "Copilot CLI complained about a hook");
  const alphaNs = resolveProject(alpha, { actor: box.actor, home: box.home }).namespace;
  const events = await waitFor(async () => {
    const ours = await eventsOf(alphaNs);
    return ours.some((e) => e.kind === "session_summary") ? ours : undefined;
  }, { timeoutMs: 60_000, what: "session 1's turn end in the collector" });
  const kinds = events.map((e) => e.kind).sort();
  assert.deepEqual(
    kinds,
    ["prompt", "session_summary", "tool_use"],
    `one prompt, one tool use (our own MCP tool is not recorded), one turn end: ${
      JSON.stringify(events.map((e) => [e.kind, e.body.content ?? e.body.data?.tool_name]))
    }`,
  );
  assert.ok(events.every((e) => e.source.surface === "copilot-cli"), JSON.stringify(events));
  assert.ok(events.every((e) => e.source.project_path === alpha));
  assert.equal(new Set(events.map((e) => e.session_id)).size, 1, "one session id");
  assert.equal(
    events.find((e) => e.kind === "prompt")!.body.content,
    "List the fixtures folder and tell me why it fails",
  );
  const tool = events.find((e) => e.kind === "tool_use")!.body.data!;
  assert.equal(tool.tool_name, "bash");
  assert.equal((tool.tool_input as { command?: string }).command, FAILING);
  assert.equal(tool.failed, true, "ls of a missing folder exits 2: the tool use must be failed");
  assert.match(String(tool.error), /fixtures-kl/);
  assert.equal(events.find((e) => e.kind === "session_summary")!.body.content, ANSWER);
  // The MCP tool was offered and called: its memory is in alpha.
  assert.ok(
    model.requests.some((r) => r.body !== null && offeredTool(r.body, "save_observation")),
    `Copilot CLI offered the kiro-learn MCP tools: ${
      JSON.stringify(((model.requests.at(-1)?.body?.tools ?? []) as { name?: string }[]).map((t) =>
        t.name
      ))
    }`,
  );
  // The prompt hook took the fast path: Copilot's route answered it (no Deno shim, which posts to
  // the events route), once; the turn's end went to the shim, which read the transcript for the
  // turn's tool uses (no hook fires per tool call) and its answer.
  const stats = await (await api(ROUTES.stats)).json();
  assert.equal(stats.latency.hook.count, 1, `fast-path hooks: ${JSON.stringify(stats.latency)}`);
  const search = await api(`${ROUTES.memories}?namespace=${encodeURIComponent(alphaNs)}&limit=50`);
  assert.ok(search.ok, await search.clone().text());
  assert.match(JSON.stringify(await search.json()), new RegExp(SAVED_TITLE));

  // A memory another agent saved for alpha, through the API.
  const shared = makeRecord({
    namespace: alphaNs,
    title: SHARED_TITLE,
    summary: "The date parser check fails on leap years because February has 29 days.",
    concepts: ["date parser", "leap year", "fixtures folder"],
  });
  const saved = await api(ROUTES.memories, { method: "POST", body: JSON.stringify(shared) });
  assert.ok(saved.ok, await saved.text());

  // Sessions 2 and 3: both memories reach alpha's next session, none reaches beta's.
  session = 2;
  await memoryInItsProjectOnly(
    (question, cwd) => box.copilot(question, { cwd, modelUrl: model.url, apiKey }),
    {
      agent: "Copilot CLI",
      requests: model.requests,
      alpha,
      beta,
      question: "Why does listing the fixtures folder fail, and what about the date parser?",
      titles: [SAVED_TITLE, SHARED_TITLE],
      offersTools: offersTools,
      text: requestText,
      via: { mark: /<system_reminder>/, hook: "userPromptSubmitted" },
    },
  );
  const betaNs = resolveProject(beta, { actor: box.actor, home: box.home }).namespace;
  await waitFor(async () => {
    const ours = await eventsOf(betaNs);
    return ours.some((e) => e.kind === "session_summary") ? true : undefined;
  }, { timeoutMs: 60_000, what: "session 3's turn end in beta" });

  // The provider key is nowhere in the data dir.
  assert.deepEqual(
    await secretsOnDisk(box.dataDir, [{ kind: "COPILOT_PROVIDER_API_KEY", secret: apiKey }]),
    [],
  );

  // The collector down (stopped, and nothing to start it again): the session runs as ever, its
  // prompt and turn end are spooled by the shim, and the next collector stores each once.
  const downPrompt = "What does the listing do while the collector is down?";
  const delivered = await sessionWhileDown(box, {
    cwd: alpha,
    prompt: downPrompt,
    async session() {
      const down = await box.copilot(downPrompt, { cwd: alpha, modelUrl: model.url, apiKey });
      assert.equal(down.code, 0, down.stdout + down.stderr);
      assert.match(down.stdout, new RegExp(ANSWER));
      assert.doesNotMatch(down.stderr, /hook/i, "Copilot CLI complained about a hook");
    },
  });
  assert.equal(delivered.find((e) => e.kind === "session_summary")!.body.content, ANSWER);

  // Nothing outlives the sessions but the collector.
  await waitForOnlyCollector(box.home);

  // Uninstall (--all: the hook file and mcp-config.json are user-level wiring) takes our hook file
  // away and gives the user's mcp-config.json back, byte for byte.
  const stopped = await box.kiroLearn(["stop"], alpha);
  assert.equal(stopped.code, 0, outputText(stopped));
  const removed = await box.kiroLearn(["uninstall", "--all"], alpha);
  assert.equal(removed.code, 0, outputText(removed));
  assert.equal(await Deno.readTextFile(mcpConfig), userMcp);
  await assert.rejects(() => Deno.stat(`${box.home}/.copilot/hooks/kiro-learn.json`));
});

Deno.test("Copilot CLI (real client): with COPILOT_HOME set, install, the hooks, doctor and uninstall use that folder", async () => {
  await using box = await copilotSandbox();
  const apiKey = `sk-ant-${crypto.randomUUID().replaceAll("-", "")}`;
  await using model = startScriptedModel((): ScriptedBlock[] => [{ type: "text", text: ANSWER }]);
  const alpha = await gitRepository(box.root, "alpha");
  // Outside HOME: the turn's end reads the session's transcript there, which the launcher lets
  // the shim read.
  const copilotHome = `${box.root}/copilot-home`;
  box.env.COPILOT_HOME = copilotHome;
  const installed = await box.kiroLearn(["install", "--agents", "copilot-cli"], alpha);
  assert.equal(installed.code, 0, outputText(installed));
  await Deno.stat(`${copilotHome}/hooks/kiro-learn.json`);
  await assert.rejects(() => Deno.stat(`${box.home}/.copilot/hooks`));
  assert.equal((await box.kiroLearn(["start"], alpha)).code, 0);

  const run = await box.copilot("Why does the listing fail?", {
    cwd: alpha,
    modelUrl: model.url,
    apiKey,
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  await Deno.stat(`${copilotHome}/session-state`);
  const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
  const namespace = resolveProject(alpha, { actor: box.actor, home: box.home }).namespace;
  const events = await waitFor(async () => {
    const res = await fetch(`http://127.0.0.1:${box.port}${ROUTES.events}?limit=50`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const ours = ((await res.json()).items as StoredEvent[]).filter((e) =>
      e.namespace === namespace
    );
    return ours.some((e) => e.kind === "session_summary") ? ours : undefined;
  }, { timeoutMs: 60_000, what: "the session's turn end in the collector" });
  assert.deepEqual(events.map((e) => e.kind).sort(), ["prompt", "session_summary"]);
  assert.equal(events.find((e) => e.kind === "session_summary")!.body.content, ANSWER);

  const doctor = await box.kiroLearn(["doctor"], alpha);
  assert.match(outputText(doctor), /Copilot CLI/);
  assert.doesNotMatch(
    outputText(doctor).split("\n").filter((l) => l.includes("Copilot CLI")).join("\n"),
    /fail|✗|missing/i,
    outputText(doctor),
  );
  await waitForOnlyCollector(box.home);
  assert.equal((await box.kiroLearn(["stop"], alpha)).code, 0);
  const removed = await box.kiroLearn(["uninstall", "--all"], alpha);
  assert.equal(removed.code, 0, outputText(removed));
  await assert.rejects(() => Deno.stat(`${copilotHome}/hooks/kiro-learn.json`));
  const mcp = JSON.parse(
    await Deno.readTextFile(`${copilotHome}/mcp-config.json`).catch(() => "{}"),
  );
  assert.equal(mcp.mcpServers?.["kiro-learn-memory"], undefined);
});
