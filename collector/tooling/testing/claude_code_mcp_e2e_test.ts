// The real Claude Code client and the MCP server the collector serves over HTTP: installed by our
// installer, the client connects in the 2026-07-28 revision (server/discover, no initialize), the
// scripted model sees our tools, and a search and a save round-trip through the collector; with
// the collector down and not startable, the session still runs without an error.
import assert from "node:assert/strict";
import { memoryPath, ROUTES } from "@kiro-learn/core/api/wire";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  claudeSandbox,
  type ModelScript,
  outputText,
  requestText,
  type ScriptedBlock,
  startScriptedModel,
} from "./mod.ts";

const SEARCH_TOOL = "mcp__kiro-learn-memory__search_memory";
const SAVE_TOOL = "mcp__kiro-learn-memory__save_observation";
const SAVED_TITLE = "Totals are rounded once, after summing the lines";
const MEMORY_TITLE = "Invoice totals round half to even";
const ANSWER = "Memory says invoice totals round half to even.";

function toolResults(body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.flatMap((m) => Array.isArray(m?.content) ? m.content : [])
    .filter((c) => c?.type === "tool_result").length;
}

/**
 * The agent's loop: load each deferred tool's schema (Claude Code defers MCP tools behind
 * ToolSearch) and call it, a search then a save, then answer. Side requests without tools get
 * the answer.
 */
const searchAndSave: ModelScript = (body) => {
  if (!Array.isArray(body.tools) || body.tools.length === 0) {
    return [{ type: "text", text: ANSWER }];
  }
  const steps: ScriptedBlock[] = [
    { type: "tool_use", name: "ToolSearch", input: { query: `select:${SEARCH_TOOL}` } },
    { type: "tool_use", name: SEARCH_TOOL, input: { query: "invoice totals rounding" } },
    { type: "tool_use", name: "ToolSearch", input: { query: `select:${SAVE_TOOL}` } },
    {
      type: "tool_use",
      name: SAVE_TOOL,
      input: {
        title: SAVED_TITLE,
        summary: "Each line keeps full precision; only the invoice total is rounded.",
        observation_type: "decision",
      },
    },
  ];
  return [steps[toolResults(body)] ?? { type: "text", text: ANSWER }];
};

Deno.test("Claude Code (real client): the collector's MCP tools are offered and calls round-trip", async () => {
  await using box = await claudeSandbox();
  await using model = startScriptedModel(searchAndSave);
  const alpha = await box.project("alpha");
  await box.installAndStart(alpha);
  const entry = JSON.parse(await Deno.readTextFile(`${box.home}/.claude.json`))
    .mcpServers["kiro-learn-memory"];
  assert.equal(entry.type, "http");
  assert.equal(entry.url, `http://127.0.0.1:${box.port}${ROUTES.mcp}`);

  const namespace = box.namespaceOf(alpha);
  const record = makeRecord({
    namespace,
    title: MEMORY_TITLE,
    summary: "Invoice totals use banker's rounding (round half to even), never half up.",
    concepts: ["invoice", "rounding"],
  });
  const saved = await box.api(ROUTES.memories, { method: "POST", body: JSON.stringify(record) });
  assert.ok(saved.ok, await saved.text());

  // Run from a subfolder: the project is still alpha's.
  await Deno.mkdir(`${alpha}/src`);
  const run = await box.claude("How are invoice totals rounded?", {
    cwd: `${alpha}/src`,
    modelUrl: model.url,
    allowedTools: [SEARCH_TOOL, SAVE_TOOL],
    args: ["--debug", "mcp"],
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(run.result, ANSWER);
  // The client probed server/discover and got an answer it took: the stateless revision, without
  // initialize and the requests that follow it.
  const log = await Deno.readTextFile(`${box.home}/.claude/debug/latest`);
  const established = /"kiro-learn-memory": Connection established with capabilities: (\{.*\})/
    .exec(log);
  assert.ok(established, `no connection in Claude Code's debug log: ${log.slice(-3000)}`);
  const era = JSON.parse(established[1]);
  assert.equal(era.protocolEra, "modern", established[1]);
  assert.equal(era.negotiatedProtocolVersion, "2026-07-28", established[1]);
  // Nor did any answer lack what that revision requires (the client would fill it in, and log it).
  assert.equal(/kiro-learn-memory.*omits required fields.*/.exec(log)?.[0], undefined);
  const loop = model.requests.map((r) => r.body).filter((b) =>
    b !== null && Array.isArray(b.tools)
  );
  assert.ok(loop.length >= 5, `the agent's loop made ${loop.length} requests`);
  // The model was offered our tools (deferred, by name), from a connected server. On a loaded
  // machine the first request may go out while the server is "still connecting" (the client does
  // not wait for it), so the offer is looked for in the loop, not in its first request.
  const texts = loop.map(requestText);
  const names = ["search_memory", "save_observation", "forget_memory"]
    .map((tool) => `mcp__kiro-learn-memory__${tool}`);
  const offer = texts.find((text) => names.every((name) => text.includes(name)));
  assert.ok(offer, `our tools were never offered: ${texts[0].slice(-3000)}`);
  for (const text of texts) {
    assert.ok(!text.includes("failed to connect"), "the MCP server failed to connect");
  }
  // The search ran in the collector, in alpha's project: the record came back to the model.
  const last = requestText(loop.at(-1)!);
  assert.ok(
    last.includes(record.record_id),
    `the tool result lacks the record: ${last.slice(-3000)}`,
  );
  assert.ok(last.includes(MEMORY_TITLE));
  // The save went through the collector into alpha's project, with the id the model was told.
  const savedId = [...last.matchAll(/mr_[0-9A-Z]{26}/g)].map((m) => m[0])
    .find((id) => id !== record.record_id);
  assert.ok(savedId, `the save's tool result has no record id: ${last.slice(-3000)}`);
  const stored = await box.api(memoryPath(savedId));
  const body = await stored.json();
  assert.equal(stored.status, 200, JSON.stringify(body));
  assert.equal(body.record.namespace, namespace);
  assert.equal(body.record.title, SAVED_TITLE);
});

Deno.test("Claude Code (real client): with the collector down and no way to start it, a session still runs cleanly", async () => {
  await using box = await claudeSandbox();
  await using model = startScriptedModel(() => [{ type: "text", text: "Hello." }]);
  const alpha = await box.project("alpha");
  const installed = await box.kiroLearn(["install"], alpha);
  assert.equal(installed.code, 0, outputText(installed));
  // Never started, and the starter the hooks and the helper would run is gone.
  await Deno.remove(`${box.dataDir}/bin/start-collector`);
  const run = await box.claude("Say hello", { cwd: alpha, modelUrl: model.url });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(run.result, "Hello.");
  assert.equal(run.stderr, "", "nothing is shown to the user");
});
