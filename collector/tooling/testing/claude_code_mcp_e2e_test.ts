// The real Claude Code client and the MCP server the collector serves over HTTP: installed by our
// installer, the scripted model sees our tools and a tool call round-trips through the collector;
// with the collector down and not startable, the session still runs without an error.
import assert from "node:assert/strict";
import { ROUTES } from "@kiro-learn/core/api/wire";
import { resolveProject } from "@kiro-learn/core/project";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  claudeSandbox,
  type ModelScript,
  outputText,
  requestText,
  startScriptedModel,
} from "./mod.ts";

const SEARCH_TOOL = "mcp__kiro-learn-memory__search_memory";
const MEMORY_TITLE = "Invoice totals round half to even";
const ANSWER = "Memory says invoice totals round half to even.";

function toolResults(body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.flatMap((m) => Array.isArray(m?.content) ? m.content : [])
    .filter((c) => c?.type === "tool_result").length;
}

/**
 * The agent's loop: load the deferred tool's schema (Claude Code defers MCP tools behind
 * ToolSearch), call it, then answer. Side requests without tools get the answer.
 */
const searchMemory: ModelScript = (body) => {
  if (!Array.isArray(body.tools) || body.tools.length === 0) {
    return [{ type: "text", text: ANSWER }];
  }
  const step = toolResults(body);
  if (step === 0) {
    return [{ type: "tool_use", name: "ToolSearch", input: { query: `select:${SEARCH_TOOL}` } }];
  }
  if (step === 1) {
    return [{ type: "tool_use", name: SEARCH_TOOL, input: { query: "invoice totals rounding" } }];
  }
  return [{ type: "text", text: ANSWER }];
};

Deno.test("Claude Code (real client): the collector's MCP tools are offered and a call round-trips", async () => {
  await using box = await claudeSandbox();
  await using model = startScriptedModel(searchMemory);
  const alpha = await box.project("alpha");
  for (const args of [["install"], ["start"]]) {
    const done = await box.kiroLearn(args, alpha);
    assert.equal(done.code, 0, outputText(done));
  }
  const entry = JSON.parse(await Deno.readTextFile(`${box.home}/.claude.json`))
    .mcpServers["kiro-learn-memory"];
  assert.equal(entry.type, "http");
  assert.equal(entry.url, `http://127.0.0.1:${box.port}${ROUTES.mcp}`);

  const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
  const namespace = resolveProject(alpha, { actor: box.actor, home: box.home }).namespace;
  const record = makeRecord({
    namespace,
    title: MEMORY_TITLE,
    summary: "Invoice totals use banker's rounding (round half to even), never half up.",
    concepts: ["invoice", "rounding"],
  });
  const saved = await fetch(`http://127.0.0.1:${box.port}${ROUTES.memories}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(record),
  });
  assert.ok(saved.ok, await saved.text());

  // Run from a subfolder: the project is still alpha's.
  await Deno.mkdir(`${alpha}/src`);
  const run = await box.claude("How are invoice totals rounded?", {
    cwd: `${alpha}/src`,
    modelUrl: model.url,
    allowedTools: [SEARCH_TOOL],
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(run.result, ANSWER);
  const loop = model.requests.map((r) => r.body).filter((b) =>
    b !== null && Array.isArray(b.tools)
  );
  assert.ok(loop.length >= 3, `the agent's loop made ${loop.length} requests`);
  // The model was offered our tools (deferred, by name), from a connected server.
  const first = requestText(loop[0]);
  for (const tool of ["search_memory", "save_observation", "forget_memory"]) {
    assert.ok(first.includes(`mcp__kiro-learn-memory__${tool}`), `${tool} not offered: ${first}`);
  }
  assert.ok(!first.includes("failed to connect"), "the MCP server failed to connect");
  // The search ran in the collector, in alpha's project: the record came back to the model.
  const last = requestText(loop.at(-1)!);
  assert.ok(
    last.includes(record.record_id),
    `the tool result lacks the record: ${last.slice(-3000)}`,
  );
  assert.ok(last.includes(MEMORY_TITLE));
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
