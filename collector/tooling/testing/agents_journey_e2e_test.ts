// One memory per project, whatever the agent (issue 34), with the four real clients in one HOME,
// one data dir and one collector, installed as docs/install.md says: the link step, then the
// page's marked install block run by sh exactly as written. A memory Claude Code saves through
// our MCP tool reaches Codex CLI, Gemini CLI and Copilot CLI in the same project and none of them
// in another; one Gemini CLI saves through its MCP entry (the sh relay) reaches Claude Code's next
// session; every agent's events are filed under its own name in the project id the CLI reports.
import assert from "node:assert/strict";
import { ROUTES } from "@kiro-learn/core/api/wire";
import { projectIdFromNamespace } from "@kiro-learn/core/project";
import { runGit } from "@kiro-learn/core/testing";
import {
  AGENTS_JOURNEY_MARKER,
  callsThenText,
  claudeSandbox,
  copilotClient,
  declaresTools,
  geminiClient,
  geminiRequestText,
  geminiToolsThenText,
  gitCheckout,
  INSTALL_DOCS_PAGE,
  linkedShell,
  markedDocBlock,
  type ModelRequest,
  offersTools,
  outputText,
  requestText,
  responsesRequestText,
  startScriptedGeminiModel,
  startScriptedModel,
  startScriptedResponsesModel,
  type StoredEvent,
  toolsThenText,
  waitFor,
} from "./mod.ts";

const ALPHA_REMOTE = "https://github.com/acme/shop-api.git";
const BETA_REMOTE = "https://github.com/acme/billing-ui.git";
const CLAUDE_SAVE_TOOL = "mcp__kiro-learn-memory__save_observation";
/** The name Gemini CLI declares our save tool under (`mcp_<server>_<tool>`). */
const GEMINI_SAVE_TOOL = "mcp_kiro-learn-memory_save_observation";
const CLAUDE_MEMORY = {
  title: "Invoice totals round half to even, once per invoice",
  summary: "Invoice lines keep full precision; only the invoice total is rounded, half to even " +
    "(banker's rounding), never half up.",
  observation_type: "decision",
  concepts: ["invoice totals", "rounding"],
};
const GEMINI_MEMORY = {
  title: "Currency codes are stored uppercase, ISO 4217",
  summary: "Orders store currency codes uppercase (ISO 4217, like EUR); a lowercase code is " +
    "normalised when the order is written.",
  observation_type: "discovery",
  concepts: ["currency codes", "orders"],
};
const INVOICE_QUESTION = "How are invoice totals rounded?";
const CURRENCY_QUESTION = "How are currency codes stored in orders?";
const ANSWER = "Done.";

/**
 * Claude Code's first session: load the deferred save tool's schema (Claude Code offers MCP tools
 * behind ToolSearch), save the memory, answer.
 */
const claudeSaves = toolsThenText([
  { name: "ToolSearch", input: { query: `select:${CLAUDE_SAVE_TOOL}` } },
  { name: CLAUDE_SAVE_TOOL, input: CLAUDE_MEMORY },
], ANSWER);

/** The first request of a session's own loop (side requests offer no tools) among `requests`. */
function firstLoopRequest(
  requests: readonly ModelRequest[],
  isLoop: (body: Record<string, unknown>) => boolean,
  session: string,
): Record<string, unknown> {
  const body = requests.map((r) => r.body).find((b) => b !== null && isLoop(b));
  assert.ok(body, `${session} never reached its model`);
  return body;
}

/** Asserts `text` (a model request) holds `title`, naming the session and showing its end. */
function assertInjected(text: string, title: string, session: string): void {
  assert.ok(
    text.includes(title),
    `${session}: the model's first request lacks the memory "${title}" (the prompt hook's ` +
      `context did not reach the model). Request: ${text.slice(-3000)}`,
  );
}

Deno.test("one memory per project, whatever the agent: Claude Code, Codex CLI, Gemini CLI and Copilot CLI (real clients) installed as docs/install.md says share alpha's memory, never beta's", async () => {
  await using box = await claudeSandbox();
  const gemini = await geminiClient(box);
  const copilot = copilotClient(box);

  // The docs' install block: its first line goes to the project; make that project a real clone.
  const install = markedDocBlock(INSTALL_DOCS_PAGE, "install", {
    marker: AGENTS_JOURNEY_MARKER,
    lang: "sh",
  });
  const cd = /^cd ~\/(\S+)\/([^/\s]+)\n/.exec(install);
  assert.ok(cd, `the install block starts with no \`cd ~/<folder>/<project>\`: ${install}`);
  const alpha = (await gitCheckout(`${box.home}/${cd[1]}`, cd[2], ALPHA_REMOTE)).dir;
  await Deno.writeTextFile(`${alpha}/README.md`, "# shop-api\n");
  await runGit(alpha, "add", "README.md");
  await runGit(alpha, "commit", "-q", "-m", "Start the shop API");
  const beta = (await gitCheckout(`${box.home}/projects`, "billing-ui", BETA_REMOTE)).dir;

  // `link` (the docs' first step, from the checkout), then the install block run as written with
  // the launcher it wrote on PATH.
  const shell = await linkedShell(box);
  const installed = await shell.sh(install, box.home);
  const installText = outputText(installed);
  assert.equal(installed.code, 0, installText);
  for (
    const wired of [
      /Claude Code hooks/,
      /Codex CLI hooks \(UserPromptSubmit, Stop\)/,
      /Gemini CLI hooks \(BeforeAgent, AfterAgent\)/,
      /Copilot CLI hooks \(userPromptSubmitted, agentStop\)/,
    ]
  ) assert.match(installText, wired);
  // `import git`: the one commit of alpha's history became memory.
  assert.match(installText, new RegExp(`imported ${alpha}: 1 added`));
  // What the CLI reports for alpha's folder: the id from its remote (doctor), the namespace it
  // searches (search).
  const doctorId = /id (\S+)… from remote origin \(github\.com\/acme\/shop-api\)/.exec(installText);
  assert.ok(doctorId, `doctor names no remote-derived id for alpha: ${installText}`);
  const kiroLearn = async (args: string[], cwd: string) => {
    const done = await shell.kiroLearn(args, cwd);
    assert.equal(done.code, 0, `kiro-learn ${args.join(" ")}: ${outputText(done)}`);
    return new TextDecoder().decode(done.stdout);
  };

  // Session 1 in alpha, the real Claude Code: its model saves a memory through our MCP tool.
  await using claudeModel = startScriptedModel(claudeSaves);
  const saved = await box.claude("Remember how invoice totals are rounded", {
    cwd: alpha,
    modelUrl: claudeModel.url,
    allowedTools: [CLAUDE_SAVE_TOOL],
  });
  assert.equal(saved.code, 0, saved.stdout + saved.stderr);
  assert.equal(saved.result, ANSWER);
  const found = JSON.parse(await kiroLearn(["search", INVOICE_QUESTION, "--json"], alpha)) as {
    title: string;
    namespace: string;
  }[];
  const claudeRecord = found.find((r) => r.title === CLAUDE_MEMORY.title);
  assert.ok(
    claudeRecord,
    `kiro-learn search in alpha lacks Claude Code's save: ${JSON.stringify(found)}`,
  );
  const alphaNs = claudeRecord.namespace;
  assert.equal(projectIdFromNamespace(alphaNs)?.slice(0, 16), doctorId[1], alphaNs);

  // Codex CLI, Gemini CLI and Copilot CLI in alpha: Claude Code's memory is in each one's first
  // model request. Gemini CLI's model also saves a memory through its MCP entry.
  await using codexModel = startScriptedResponsesModel(callsThenText([], ANSWER));
  const codexRun = await box.codex(INVOICE_QUESTION, { cwd: alpha, modelUrl: codexModel.url });
  assert.equal(codexRun.code, 0, codexRun.stdout + codexRun.stderr);
  assertInjected(
    responsesRequestText(
      firstLoopRequest(codexModel.requests, (b) => Array.isArray(b.tools), "Codex CLI in alpha"),
    ),
    CLAUDE_MEMORY.title,
    "Codex CLI in alpha",
  );

  await using geminiModel = startScriptedGeminiModel(
    geminiToolsThenText([{ name: GEMINI_SAVE_TOOL, args: GEMINI_MEMORY }], ANSWER),
  );
  const geminiRun = await gemini.gemini(INVOICE_QUESTION, {
    cwd: alpha,
    modelUrl: geminiModel.url,
    apiKey: "AIzaSy-scripted-model-key",
  });
  assert.equal(geminiRun.code, 0, geminiRun.stdout + geminiRun.stderr);
  assert.equal(geminiRun.response, ANSWER);
  assertInjected(
    geminiRequestText(firstLoopRequest(geminiModel.requests, declaresTools, "Gemini CLI in alpha")),
    CLAUDE_MEMORY.title,
    "Gemini CLI in alpha",
  );
  const geminiSaved = JSON.parse(
    await kiroLearn(["search", CURRENCY_QUESTION, "--json"], alpha),
  ) as { title: string; namespace: string }[];
  assert.ok(
    geminiSaved.some((r) => r.title === GEMINI_MEMORY.title && r.namespace === alphaNs),
    `Gemini CLI's save is not in alpha: ${JSON.stringify(geminiSaved)}`,
  );

  await using copilotModel = startScriptedModel(() => [{ type: "text", text: ANSWER }]);
  const copilotRun = await copilot.copilot(INVOICE_QUESTION, {
    cwd: alpha,
    modelUrl: copilotModel.url,
    apiKey: "sk-ant-scripted-model-key",
  });
  assert.equal(copilotRun.code, 0, copilotRun.stdout + copilotRun.stderr);
  assertInjected(
    requestText(firstLoopRequest(copilotModel.requests, offersTools, "Copilot CLI in alpha")),
    CLAUDE_MEMORY.title,
    "Copilot CLI in alpha",
  );

  // Beta, the same question: neither of alpha's memories, in any request.
  const seen = codexModel.requests.length;
  const betaRun = await box.codex(INVOICE_QUESTION, { cwd: beta, modelUrl: codexModel.url });
  assert.equal(betaRun.code, 0, betaRun.stdout + betaRun.stderr);
  const betaRequests = codexModel.requests.slice(seen).filter((r) => r.body !== null);
  assert.ok(betaRequests.length > 0, "Codex CLI in beta never reached its model");
  for (const request of betaRequests) {
    const text = responsesRequestText(request.body);
    for (const title of [CLAUDE_MEMORY.title, GEMINI_MEMORY.title]) {
      assert.ok(!text.includes(title), `alpha's memory "${title}" reached beta`);
    }
  }

  // Claude Code's next session in alpha: Gemini CLI's memory is in its first model request.
  claudeModel.setScript(() => [{ type: "text", text: ANSWER }]);
  const claudeSeen = claudeModel.requests.length;
  const asked = await box.claude(CURRENCY_QUESTION, { cwd: alpha, modelUrl: claudeModel.url });
  assert.equal(asked.code, 0, asked.stdout + asked.stderr);
  assertInjected(
    requestText(
      firstLoopRequest(claudeModel.requests.slice(claudeSeen), offersTools, "Claude Code in alpha"),
    ),
    GEMINI_MEMORY.title,
    "Claude Code's second session in alpha",
  );

  // Every session's events, under its own agent's name, in alpha's project (beta's in beta's).
  const sessions: [surface: string, prompt: string, cwd: string, sessions: number][] = [
    ["claude-code", "Remember how invoice totals are rounded", alpha, 2],
    ["codex", INVOICE_QUESTION, alpha, 1],
    ["gemini-cli", INVOICE_QUESTION, alpha, 1],
    ["copilot-cli", INVOICE_QUESTION, alpha, 1],
  ];
  let held: StoredEvent[] = [];
  const events = await waitFor(async () => {
    held = await box.eventsIn(alphaNs);
    const ended = (surface: string) =>
      held.filter((e) => e.source.surface === surface && e.kind === "session_summary").length;
    return sessions.every(([surface, , , n]) => ended(surface) >= n) ? held : undefined;
  }, { timeoutMs: 60_000, what: "every alpha session's turn end in alpha's project" })
    .catch((error: Error) => {
      const seen = held.map((e) => `${e.source.surface} ${e.kind}`);
      throw new Error(`${error.message} (${alphaNs} holds: ${JSON.stringify(seen)})`);
    });
  for (const [surface, prompt] of sessions) {
    const prompts = events.filter((e) => e.kind === "prompt" && e.source.surface === surface);
    assert.ok(
      prompts.some((e) => e.body.content === prompt),
      `no ${surface} prompt "${prompt}" in alpha's project (${alphaNs}): ${
        JSON.stringify(events.map((e) => [e.source.surface, e.kind, e.body.content]))
      }`,
    );
  }
  assert.ok(events.every((e) => e.source.project_path === alpha), JSON.stringify(events));
  // Beta's session is beta's: filed in the project id doctor reports for beta's folder, and the
  // CLI finds none of alpha's memory there.
  const betaDoctor = /id (\S+)… from remote origin \(github\.com\/acme\/billing-ui\)/.exec(
    await kiroLearn(["doctor"], beta),
  );
  assert.ok(betaDoctor, "doctor names no remote-derived id for beta");
  assert.notEqual(betaDoctor[1], doctorId[1]);
  const betaEvents = await waitFor(async () => {
    const res = await box.api(`${ROUTES.events}?limit=200`);
    const all = ((await res.json()).items as StoredEvent[])
      .filter((e) => e.source.project_path === beta);
    return all.some((e) => e.kind === "session_summary") ? all : undefined;
  }, { timeoutMs: 60_000, what: "the beta session's turn end" });
  for (const event of betaEvents) {
    assert.equal(event.source.surface, "codex");
    assert.equal(projectIdFromNamespace(event.namespace)?.slice(0, 16), betaDoctor[1]);
  }
  assert.deepEqual(
    JSON.parse(await kiroLearn(["search", INVOICE_QUESTION, "--json"], beta)),
    [],
    "kiro-learn search in beta finds alpha's memory",
  );

  // Nothing outlives the sessions but the collector; after stop, nothing at all.
  await box.settled("hooks, MCP servers and clients to exit");
  await box.stopAll(alpha);
});
