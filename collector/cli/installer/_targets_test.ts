import assert from "node:assert/strict";
import { InstallError } from "./errors.ts";
import { HOOK_MARKER } from "./shell.ts";
import { type HookSet, makeTarget, ourHookCommands } from "./_targets.ts";

const HOOKS: HookSet = {
  kiroCli: `/s/kiro-cli || true ${HOOK_MARKER}`,
  claudeCode: `/s/claude || true ${HOOK_MARKER}`,
  claudeCodeStore: `/s/claude --store || true ${HOOK_MARKER}`,
  codex: `/s/codex || true ${HOOK_MARKER}`,
  geminiCli: `/s/gemini || true ${HOOK_MARKER}`,
  copilotCli: (event) => `/s/copilot ${event} || true ${HOOK_MARKER}`,
  kiroIde: (event) => `/s/ide ${event} || true ${HOOK_MARKER}`,
  mcp: { command: "/s/mcp", args: ["--stdio"] },
  known: ["/s/"],
};

type Json = Record<string, unknown>;

Deno.test("Claude hooks: a fresh file gets one group per event, store hooks named as such", () => {
  const doc = makeTarget("claude-settings-user", "/h/.claude/settings.json", { hooks: HOOKS })
    .install(undefined);
  const hooks = doc.hooks as Record<string, Json[]>;
  assert.equal(Object.keys(hooks).length, 3);
  // The events that only store say so in their command (the launcher then reads the payload in
  // the background); the ones whose output Claude Code reads do not.
  assert.deepEqual(hooks.Stop, [{
    hooks: [{ type: "command", command: HOOKS.claudeCodeStore, timeout: 10 }],
  }]);
  const commands = Object.fromEntries(
    Object.entries(hooks).map(([event, groups]) => [
      event,
      (groups as { matcher?: string; hooks: { command: string }[] }[]).map((g) =>
        `${g.matcher ?? ""} ${g.hooks[0].command}`
      ).join(", "),
    ]),
  );
  const [all, store] = [HOOKS.claudeCode, HOOKS.claudeCodeStore];
  assert.deepEqual(commands, {
    // Not at startup: there it would only store a lifecycle note (the first prompt carries the
    // start block), and Claude Code waits for it before its first request.
    SessionStart: `resume|clear|compact ${all}`,
    UserPromptSubmit: ` ${all}`,
    // No tool hooks: the turn's end reads the turn's tool uses from the transcript.
    Stop: ` ${store}`,
  });
  assert.deepEqual(hooks.UserPromptSubmit[0].matcher, undefined);
});

Deno.test("Claude hooks: our handler is taken out of a shared group, foreign ones stay", () => {
  const target = makeTarget("claude-settings-project", "/p/.claude/settings.json", {
    hooks: HOOKS,
  });
  const current = {
    hooks: {
      Stop: [{
        hooks: [{ type: "command", command: "say hi" }, { type: "command", command: "/s/old" }],
      }],
    },
  };
  const installed = target.install(current);
  const stop = (installed.hooks as Record<string, Json[]>).Stop;
  assert.deepEqual(stop[0], { hooks: [{ type: "command", command: "say hi" }] });
  assert.equal(stop.length, 2);
  assert.deepEqual(target.strip(installed), {
    hooks: {
      Stop: [{ hooks: [{ type: "command", command: "say hi" }] }],
      SessionStart: [],
      UserPromptSubmit: [],
    },
  });
  // install never mutates its input
  assert.equal(current.hooks.Stop[0].hooks.length, 2);
});

Deno.test("Claude hooks: an event an older version hooked goes, a list the user left empty stays", () => {
  const target = makeTarget("claude-settings-user", "/h/s.json", { hooks: HOOKS });
  const ours = { type: "command", command: HOOKS.claudeCodeStore, timeout: 5 };
  const installed = target.install({
    hooks: {
      SessionEnd: [{ hooks: [ours] }],
      PostToolUse: [{ matcher: "*", hooks: [ours] }],
      PostToolUseFailure: [{ matcher: "*", hooks: [ours] }],
      Notification: [],
      PreCompact: [{ hooks: [ours, { type: "command", command: "say bye" }] }],
    },
  });
  const events = installed.hooks as Record<string, Json[]>;
  // SessionEnd only stored a lifecycle note: a reinstall takes the older version's hook out.
  assert.ok(!("SessionEnd" in events), "the older version's SessionEnd hook was left behind");
  // Nor tool hooks: the turn's end reads the tool uses from the transcript.
  assert.ok(!("PostToolUse" in events), "the older version's PostToolUse hook was left behind");
  assert.ok(!("PostToolUseFailure" in events), "the older PostToolUseFailure hook was left");
  assert.deepEqual(events.Notification, []);
  assert.deepEqual(events.PreCompact, [{ hooks: [{ type: "command", command: "say bye" }] }]);
});

Deno.test("Claude hooks: an event that is not a list is refused, naming file and key", () => {
  const target = makeTarget("claude-settings-user", "/h/s.json", { hooks: HOOKS });
  assert.throws(
    () => target.install({ hooks: { Stop: { command: "x" } } }),
    (error: unknown) =>
      error instanceof InstallError &&
      /\/h\/s\.json: "hooks\.Stop" should be a list/.test(error.message),
  );
});

Deno.test("MCP entries: ours is set in place and removed alone", () => {
  const claude = makeTarget("claude-mcp-project", "/p/.mcp.json", { hooks: HOOKS });
  const doc = claude.install({ mcpServers: { a: {}, "kiro-learn-memory": { old: 1 }, b: {} } });
  assert.deepEqual(Object.keys(doc.mcpServers as Json), ["a", "kiro-learn-memory", "b"]);
  assert.deepEqual((doc.mcpServers as Json)["kiro-learn-memory"], {
    type: "stdio",
    command: "/s/mcp",
    args: ["--stdio"],
  });
  assert.deepEqual(claude.strip(doc), { mcpServers: { a: {}, b: {} } });
  const kiro = makeTarget("kiro-mcp", "/p/.kiro/settings/mcp.json", { hooks: HOOKS });
  assert.deepEqual(kiro.install(undefined), {
    mcpServers: { "kiro-learn-memory": { command: "/s/mcp", args: ["--stdio"] } },
  });
});

Deno.test("Kiro v1 hook file: foreign hooks in it stay, ours have no cache and a timeout", () => {
  const target = makeTarget("kiro-hooks", "/p/.kiro/hooks/kiro-learn.json", { hooks: HOOKS });
  const foreign = { name: "mine", trigger: "Stop", action: { type: "agent", prompt: "hi" } };
  const doc = target.install({ version: "v1", hooks: [foreign] });
  const list = doc.hooks as Json[];
  assert.deepEqual(list[0], foreign);
  assert.equal(list.length, 5);
  for (const hook of list.slice(1)) {
    assert.equal(hook.timeout, 10);
    assert.deepEqual(hook.action, { type: "command", command: HOOKS.kiroCli });
    assert.ok(!Object.keys(hook).some((k) => k.includes("cache")));
  }
  assert.deepEqual(target.strip(doc), { version: "v1", hooks: [foreign] });
  assert.ok(target.residual({ version: "v1", hooks: [] }));
  assert.ok(!target.residual({ version: "v1", hooks: [foreign] }));
});

Deno.test("chat agent: a seeded agent with a file:// prompt keeps its prompt reference", () => {
  const target = makeTarget("kiro-chat-agent", "/h/.kiro/agents/kiro-learn.json", {
    hooks: HOOKS,
    seed: { name: "kiro_default", prompt: "file://./prompt.md", tools: ["*"] },
  });
  const doc = target.install(undefined);
  assert.equal(doc.prompt, "file://./prompt.md");
  assert.equal(doc.name, "kiro-learn");
  assert.deepEqual((doc.hooks as Record<string, Json[]>).postToolUse, [
    { matcher: "*", command: HOOKS.kiroCli },
  ]);
  assert.equal(target.owned, "when-created");
});

Deno.test("owned files: LLM agents and IDE hooks are recognised by content", () => {
  const agent = makeTarget("kiro-llm-agent", "/h/.kiro/agents/kiro-learn-compactor.json", {
    hooks: HOOKS,
  });
  const written = agent.install(undefined);
  assert.equal(written.name, "kiro-learn-compactor");
  assert.ok(agent.recognise(written));
  assert.ok(!agent.recognise({ name: "someone-else" }));
  const ide = makeTarget("kiro-ide-hook", "/p/.kiro/hooks/kiro-learn-tool.kiro.hook", {
    hooks: HOOKS,
  });
  const hook = ide.install(undefined);
  assert.deepEqual(Object.keys(hook), [
    "enabled",
    "name",
    "description",
    "version",
    "when",
    "then",
  ]);
  assert.ok(ide.recognise(hook));
  assert.ok(!ide.recognise({ then: { command: "npm test" } }));
});

Deno.test("ourHookCommands lists our commands by event for each kind", () => {
  const claude = makeTarget("claude-settings-user", "/x", { hooks: HOOKS }).install({
    hooks: { Stop: [{ hooks: [{ type: "command", command: "say hi" }] }] },
  });
  const found = ourHookCommands("claude-settings-user", claude);
  assert.equal(found.size, 3);
  assert.deepEqual(found.get("Stop"), [HOOKS.claudeCodeStore]);
  const v3 = makeTarget("kiro-hooks", "/x", { hooks: HOOKS }).install(undefined);
  assert.deepEqual([...ourHookCommands("kiro-hooks", v3).keys()], [
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "Stop",
  ]);
  assert.equal(ourHookCommands("kiro-mcp", {}).size, 0);
});
