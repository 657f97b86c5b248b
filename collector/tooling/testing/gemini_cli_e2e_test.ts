// The real Gemini CLI, offline against a scripted Gemini API, with kiro-learn installed by its own
// installer and a real collector: what the hooks record, what memory reaches the model, and that
// the API key Gemini CLI hands every hook never reaches kiro-learn's data dir.
import assert from "node:assert/strict";
import { ROUTES } from "@kiro-learn/core/api/wire";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  declaresTools,
  type GeminiPart,
  geminiRequestText,
  geminiSandbox,
  outputText,
  secretsOnDisk,
  startScriptedGeminiModel,
  waitFor,
} from "./mod.ts";
import { sessionWhileDown } from "./_collector_down.ts";
import { memoryInItsProjectOnly } from "./_memory_sessions.ts";

const SAVED_TITLE = "Check script exits 1 by design";
const SHARED_TITLE = "Leap-year date parser fix";
const ANSWER = "The check failed: false always exits 1.";

/** The name Gemini CLI declares an MCP tool of ours under (`mcp_<server>_<tool>`). */
function declaredTool(body: Record<string, unknown>, suffix: string): string | undefined {
  const tools = (body.tools ?? []) as { functionDeclarations?: { name?: string }[] }[];
  return tools.flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name ?? "")
    .find((name) => name.endsWith(suffix));
}

/** How many function responses the turn under way has (since the last plain user prompt). */
function turnResponses(body: Record<string, unknown>): number {
  const contents = (body.contents ?? []) as { role?: string; parts?: Record<string, unknown>[] }[];
  let count = 0;
  for (const content of [...contents].reverse()) {
    if (content.role !== "user") continue;
    const n = (content.parts ?? []).filter((p) => "functionResponse" in p).length;
    if (n === 0) break;
    count += n;
  }
  return count;
}

Deno.test("Gemini CLI (real client): a session is recorded once, memory saved in it and by another agent reaches the next, only in its project", async () => {
  await using box = await geminiSandbox();
  // A key shaped like a real one, new each run: it must be found nowhere on kiro-learn's disk.
  const apiKey = `AIzaSy${crypto.randomUUID().replaceAll("-", "")}Xq`;
  // Session 1: a failing shell call, then our MCP tool saves what was learned, then the answer.
  // Later sessions: the answer only.
  let session = 1;
  await using model = startScriptedGeminiModel((body): GeminiPart[] => {
    if (!declaresTools(body) || session > 1) return [{ text: ANSWER }];
    const done = turnResponses(body);
    if (done === 0) {
      return [{ functionCall: { name: "run_shell_command", args: { command: "false" } } }];
    }
    const save = declaredTool(body, "save_observation");
    if (done === 1 && save !== undefined) {
      return [{
        functionCall: {
          name: save,
          args: {
            title: SAVED_TITLE,
            summary: "scripts/check runs `false`, which always exits 1: a failed check here " +
              "is expected, not a regression.",
            observation_type: "discovery",
            concepts: ["check script"],
          },
        },
      }];
    }
    return [{ text: ANSWER }];
  });
  const alpha = await box.project("alpha", { git: true });
  const beta = await box.project("beta", { git: true });

  const userSettings = `${box.home}/.gemini/settings.json`;
  const before = await Deno.readTextFile(userSettings);
  const installed = await box.installAndStart(alpha);
  assert.match(installed, /Gemini CLI hooks \(BeforeAgent, AfterAgent\)/);
  // Its memory tools come from the sh relay to the collector's MCP route, not a Deno process.
  const entry = JSON.parse(await Deno.readTextFile(userSettings)).mcpServers["kiro-learn-memory"];
  assert.match(entry.args.join(" "), /\/bin\/mcp-relay$/, JSON.stringify(entry));

  // Session 1 in alpha.
  const first = await box.gemini("Run the check script and tell me why it fails", {
    cwd: alpha,
    modelUrl: model.url,
    apiKey,
  });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.equal(first.response, ANSWER);
  // Gemini CLI says so on stderr when a hook fails, times out or prints something it cannot use.
  assert.doesNotMatch(first.stderr, /hook/i, "Gemini CLI complained about a hook");
  const alphaNs = box.namespaceOf(alpha);
  const events = await waitFor(async () => {
    const ours = await box.eventsIn(alphaNs);
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
  assert.ok(events.every((e) => e.source.surface === "gemini-cli"), JSON.stringify(events));
  assert.ok(events.every((e) => e.source.project_path === alpha));
  assert.equal(new Set(events.map((e) => e.session_id)).size, 1, "one session id");
  assert.equal(
    events.find((e) => e.kind === "prompt")!.body.content,
    "Run the check script and tell me why it fails",
  );
  const tool = events.find((e) => e.kind === "tool_use")!.body.data!;
  assert.equal(tool.tool_name, "run_shell_command");
  assert.deepEqual(tool.tool_input, { command: "false" });
  assert.equal(tool.failed, true, "`false` exits 1: the tool use must be flagged failed");
  assert.equal(events.find((e) => e.kind === "session_summary")!.body.content, ANSWER);
  // The prompt hook took the fast path: Gemini CLI's route answered it (a Deno shim posts to the
  // events route instead), once; no hook fired per tool call, and the turn's end went to the
  // shim, which read the turn's tool uses from the session's chat file.
  const stats = await (await box.api(ROUTES.stats)).json();
  assert.equal(stats.latency.hook.count, 1, `fast-path hooks: ${JSON.stringify(stats.latency)}`);
  // The MCP tool was offered and called: its memory is in alpha.
  assert.ok(
    model.requests.some((r) => r.body !== null && declaredTool(r.body, "save_observation")),
    "Gemini CLI offered the kiro-learn MCP tools",
  );
  const search = await box.api(
    `${ROUTES.memories}?namespace=${encodeURIComponent(alphaNs)}&limit=50`,
  );
  assert.ok(search.ok, await search.clone().text());
  assert.match(JSON.stringify(await search.json()), new RegExp(SAVED_TITLE));

  // A memory another agent saved for alpha, through the API.
  const shared = makeRecord({
    namespace: alphaNs,
    title: SHARED_TITLE,
    summary: "The date parser check fails on leap years because February has 29 days.",
    concepts: ["date parser", "leap year", "check script"],
  });
  const saved = await box.api(ROUTES.memories, { method: "POST", body: JSON.stringify(shared) });
  assert.ok(saved.ok, await saved.text());

  // Sessions 2 and 3: both memories reach alpha's next session, none reaches beta's.
  session = 2;
  await memoryInItsProjectOnly(
    (question, cwd) => box.gemini(question, { cwd, modelUrl: model.url, apiKey }),
    {
      agent: "Gemini CLI",
      requests: model.requests,
      alpha,
      beta,
      question: "Why does the check script fail, and what about the date parser?",
      titles: [SAVED_TITLE, SHARED_TITLE],
      offersTools: declaresTools,
      text: geminiRequestText,
      via: { mark: /<hook_context>/, hook: "the BeforeAgent hook" },
    },
  );
  const betaNs = box.namespaceOf(beta);
  await waitFor(async () => {
    const ours = await box.eventsIn(betaNs);
    return ours.some((e) => e.kind === "session_summary") ? true : undefined;
  }, { timeoutMs: 60_000, what: "session 3's turn end in beta" });

  // The API key Gemini CLI put in every hook's environment is nowhere in the data dir.
  assert.deepEqual(
    await secretsOnDisk(box.dataDir, [{ kind: "GEMINI_API_KEY", secret: apiKey }]),
    [],
  );

  // The collector down (stopped, and nothing to start it again): the session runs as ever, its
  // prompt and turn end are spooled, and the next collector stores each once.
  const downPrompt = "What does the check script do while the collector is down?";
  await sessionWhileDown(box, {
    cwd: alpha,
    prompt: downPrompt,
    async session() {
      const down = await box.gemini(downPrompt, { cwd: alpha, modelUrl: model.url, apiKey });
      assert.equal(down.code, 0, down.stdout + down.stderr);
      assert.equal(down.response, ANSWER);
      assert.doesNotMatch(down.stderr, /hook/i, "Gemini CLI complained about a hook");
    },
  });

  // Nothing outlives the sessions but the collector.
  await box.settled("hooks, MCP servers and clients to exit");

  // Uninstall (--all: settings.json is user-level wiring) gives the user's settings.json back, byte
  // for byte.
  const stopped = await box.kiroLearn(["stop"], alpha);
  assert.equal(stopped.code, 0, outputText(stopped));
  const removed = await box.kiroLearn(["uninstall", "--all"], alpha);
  assert.equal(removed.code, 0, outputText(removed));
  assert.equal(await Deno.readTextFile(userSettings), before);
});
