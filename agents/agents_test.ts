import assert from "node:assert/strict";
import {
  AGENT_MODEL,
  CHAT_AGENT_HOOK_TRIGGERS,
  CHAT_AGENT_NAME,
  CHAT_AGENT_TEMPLATE,
  COMPACTOR_AGENT,
  COMPRESSOR_AGENT,
  type KiroAgentConfig,
  LLM_AGENTS,
  OBSERVATION_KINDS,
  OBSERVATION_TYPES,
  RECONCILER_AGENT,
} from "./mod.ts";

const ALL_AGENTS: readonly Readonly<KiroAgentConfig>[] = [...LLM_AGENTS, CHAT_AGENT_TEMPLATE];

/** True when `prompt` holds `<tag` followed by a tag boundary (`>`, `/` or whitespace). */
function mentionsTag(prompt: string, tag: string): boolean {
  return new RegExp(`<${tag}[\\s>/]`).test(prompt);
}

Deno.test("the LLM agents have no tools, no MCP servers, no resources and the pinned model", () => {
  assert.equal(LLM_AGENTS.length, 3);
  for (const agent of LLM_AGENTS) {
    assert.deepEqual(agent.tools, [], agent.name);
    assert.deepEqual(agent.allowedTools, [], agent.name);
    assert.deepEqual(agent.mcpServers, {}, agent.name);
    assert.deepEqual(agent.resources, [], agent.name);
    assert.equal(agent.includeMcpJson, false, agent.name);
    assert.equal(agent.model, AGENT_MODEL, agent.name);
    assert.equal(agent.hooks, undefined, agent.name);
  }
});

Deno.test("agent names are unique and kiro-learn prefixed", () => {
  const names = ALL_AGENTS.map((agent) => agent.name);
  assert.equal(new Set(names).size, names.length);
  for (const name of names) assert.match(name, /^kiro-learn(-[a-z]+)?$/);
  assert.deepEqual(names, [
    "kiro-learn-compressor",
    "kiro-learn-reconciler",
    "kiro-learn-compactor",
    "kiro-learn",
  ]);
});

Deno.test("every agent is JSON-serialisable without loss", () => {
  for (const agent of ALL_AGENTS) {
    const text = JSON.stringify(agent, null, 2);
    assert.deepEqual(JSON.parse(text), agent);
  }
});

Deno.test("definitions are frozen so no importer can change the shared copy", () => {
  for (const agent of ALL_AGENTS) {
    assert.ok(Object.isFrozen(agent));
    assert.throws(() => (agent.tools as string[]).push("fs_write"));
  }
});

Deno.test("the prompts name every observation type", () => {
  for (const agent of LLM_AGENTS) {
    for (const type of OBSERVATION_TYPES) {
      assert.ok(agent.prompt.includes(type), `${agent.name} does not mention ${type}`);
    }
  }
});

Deno.test("the prompts describe the input framing with its exact tag names and kinds", () => {
  for (const agent of [COMPRESSOR_AGENT, COMPACTOR_AGENT]) {
    for (const tag of ["tool_observation", "tool_name", "timestamp", "input", "output", "status"]) {
      assert.ok(mentionsTag(agent.prompt, tag), `${agent.name} lacks <${tag}>`);
    }
    for (const kind of OBSERVATION_KINDS) assert.ok(agent.prompt.includes(kind), kind);
  }
  for (const tag of ["reconciliation_request", "candidate_cluster", "candidate", "neighbor_pool"]) {
    assert.ok(mentionsTag(RECONCILER_AGENT.prompt, tag), `reconciler lacks <${tag}>`);
  }
  assert.ok(mentionsTag(COMPACTOR_AGENT.prompt, "compaction_request"));
});

Deno.test("the compressor prompt states the record grammar", () => {
  const prompt = COMPRESSOR_AGENT.prompt;
  for (
    const tag of [
      "memory_record",
      "title",
      "summary",
      "facts",
      "fact",
      "concepts",
      "concept",
      "files",
      "file",
      "skip",
    ]
  ) {
    assert.ok(mentionsTag(prompt, tag), `compressor lacks <${tag}>`);
  }
  assert.ok(prompt.includes('<memory_record type="'));
  assert.ok(prompt.includes("<skip/>"));
  assert.ok(prompt.includes('<skip reason="'));
  assert.ok(prompt.includes("200 characters"));
  assert.match(prompt, /XML only/);
});

Deno.test("the reconciler prompt states the judge grammar", () => {
  const prompt = RECONCILER_AGENT.prompt;
  for (
    const tag of [
      "keep_separate",
      "merge",
      "merged_record_id",
      "title",
      "summary",
      "facts",
      "fact",
      "concepts",
      "concept",
      "files",
      "file",
      "observation_type",
    ]
  ) {
    assert.ok(mentionsTag(prompt, tag), `reconciler lacks <${tag}>`);
  }
  assert.ok(prompt.includes("<keep_separate/>"));
  assert.match(prompt, /XML only/);
});

Deno.test("the compactor prompt states the compacted-entry grammar", () => {
  assert.ok(mentionsTag(COMPACTOR_AGENT.prompt, "compacted_entry"));
  assert.ok(COMPACTOR_AGENT.prompt.includes("</compacted_entry>"));
  assert.match(COMPACTOR_AGENT.prompt, /XML only/);
});

Deno.test("the chat agent template leaves hooks and MCP servers for the installer", () => {
  assert.equal(CHAT_AGENT_TEMPLATE.name, CHAT_AGENT_NAME);
  assert.deepEqual(CHAT_AGENT_TEMPLATE.hooks, {});
  assert.deepEqual(CHAT_AGENT_TEMPLATE.mcpServers, {});
  assert.deepEqual(CHAT_AGENT_TEMPLATE.tools, ["*"]);
  assert.deepEqual(
    CHAT_AGENT_HOOK_TRIGGERS.map((t) => t.trigger),
    ["agentSpawn", "userPromptSubmit", "postToolUse", "stop"],
  );
  assert.equal(CHAT_AGENT_HOOK_TRIGGERS.find((t) => t.trigger === "postToolUse")?.matcher, "*");
  // A cached capture hook drops every event after the first one.
  assert.ok(!JSON.stringify(CHAT_AGENT_TEMPLATE).includes("cache_ttl"));
});
