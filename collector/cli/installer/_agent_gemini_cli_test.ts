import assert from "node:assert/strict";
import { GEMINI_HOOK_EVENTS } from "@kiro-learn/core/hooks";
import { GEMINI_CLI, GEMINI_HOOK_NAME, GEMINI_HOOK_TIMEOUT_MS } from "./_agent_gemini_cli.ts";
import { install, uninstall } from "./install.ts";
import { HOOK_MARKER } from "./shell.ts";
import { ourHookCommands } from "./_targets.ts";
import {
  checkAgent,
  optionsFor,
  QUIET,
  readJson,
  snapshot,
  TEST_HOOKS,
  uninstallOptionsFor,
  withWorld,
  type World,
} from "./_test_support.ts";

const SETTINGS = "home/.gemini/settings.json";
type Json = Record<string, unknown>;

// What a Gemini CLI user's settings.json may hold: its own hooks on the events we hook (and
// others), its own MCP server, other keys; 4-space indentation, no final newline.
const FOREIGN_GEMINI = JSON.stringify(
  {
    security: { auth: { selectedType: "gemini-api-key" } },
    hooks: {
      BeforeAgent: [{
        hooks: [{ type: "command", name: "git-context", command: "~/bin/git-context.sh" }],
      }],
      BeforeTool: [{
        matcher: "run_shell_command",
        hooks: [{ type: "command", command: "~/bin/guard.sh", timeout: 2000 }],
      }],
      AfterAgent: [],
    },
    hooksConfig: { enabled: true },
    mcpServers: { github: { command: "gh-mcp", args: ["--stdio"] } },
    ui: { theme: "Default" },
  },
  null,
  4,
);

async function writeGemini(world: World, text: string): Promise<void> {
  await Deno.mkdir(`${world.home}/.gemini`, { recursive: true });
  await Deno.writeTextFile(`${world.root}/${SETTINGS}`, text);
}

Deno.test("GEMINI_CLI: owns its file alone; install, read back and strip agree; doctor stays in place", () => {
  checkAgent(GEMINI_CLI, { files: [["gemini-settings-user", "/h/.gemini/settings.json"]] });
});

Deno.test("a fresh settings.json gets one group per hooked event and the stdio MCP server", () => {
  const doc = GEMINI_CLI.target("gemini-settings-user", "/h/.gemini/settings.json", {
    hooks: TEST_HOOKS,
  }).install(undefined);
  const hooks = doc.hooks as Record<string, Json[]>;
  assert.deepEqual(Object.keys(hooks), [...GEMINI_HOOK_EVENTS]);
  for (const event of GEMINI_HOOK_EVENTS) {
    assert.deepEqual(hooks[event], [{
      hooks: [{
        type: "command",
        name: GEMINI_HOOK_NAME,
        command: TEST_HOOKS.geminiCli,
        timeout: GEMINI_HOOK_TIMEOUT_MS,
      }],
    }]);
  }
  assert.deepEqual((doc.mcpServers as Json)["kiro-learn-memory"], TEST_HOOKS.mcp);
  const found = ourHookCommands("gemini-settings-user", doc, TEST_HOOKS.known);
  assert.deepEqual([...found.keys()], [...GEMINI_HOOK_EVENTS]);
});

Deno.test("an older install's AfterTool hook is taken out: the turn's end reads the tool uses", () => {
  const ours = {
    hooks: [{ type: "command", name: GEMINI_HOOK_NAME, command: TEST_HOOKS.geminiCli }],
  };
  const theirs = { hooks: [{ type: "command", command: "my-audit-hook" }] };
  const doc = GEMINI_CLI.target("gemini-settings-user", "/h/.gemini/settings.json", {
    hooks: TEST_HOOKS,
  }).install({ hooks: { AfterTool: [theirs, ours], AfterAgent: [ours] } });
  const hooks = doc.hooks as Record<string, Json[]>;
  assert.deepEqual(hooks.AfterTool, [theirs]);
  assert.equal(hooks.AfterAgent.length, 1);
  const found = ourHookCommands("gemini-settings-user", doc, TEST_HOOKS.known);
  assert.deepEqual([...found.keys()].sort(), ["AfterAgent", "BeforeAgent"]);
});

Deno.test("install keeps the user's Gemini hooks, servers and keys; uninstall restores every byte", async () => {
  await withWorld(async (world) => {
    await writeGemini(world, FOREIGN_GEMINI);
    const before = snapshot(world.root);
    await install({ ...optionsFor(world), ...QUIET });
    const after = readJson(world, SETTINGS);
    const original = JSON.parse(FOREIGN_GEMINI) as Json;
    assert.deepEqual(Object.keys(after), Object.keys(original), "keys keep their order");
    for (const key of ["security", "hooksConfig", "ui"]) {
      assert.deepEqual(after[key], original[key]);
    }
    const hooks = after.hooks as Record<string, Json[]>;
    const foreign = original.hooks as Record<string, Json[]>;
    assert.deepEqual(hooks.BeforeAgent[0], foreign.BeforeAgent[0], "the user's hook stays first");
    assert.equal(hooks.BeforeAgent.length, 2);
    assert.deepEqual(hooks.BeforeTool, foreign.BeforeTool);
    assert.equal(JSON.stringify(hooks).split(HOOK_MARKER).length - 1, GEMINI_HOOK_EVENTS.length);
    assert.ok(
      (hooks.AfterAgent[0].hooks as Json[])[0].command as string,
      "AfterAgent hooked",
    );
    assert.deepEqual(Object.keys(after.mcpServers as Json), ["github", "kiro-learn-memory"]);
    // The file keeps its layout: 4-space indentation, no final newline.
    const text = await Deno.readTextFile(`${world.root}/${SETTINGS}`);
    assert.match(text, /^\{\n {4}"security"/);
    assert.ok(!text.endsWith("\n"));

    // A second install changes nothing.
    const once = snapshot(world.root);
    await install({ ...optionsFor(world), ...QUIET });
    assert.deepEqual(snapshot(world.root), once);

    await uninstall(uninstallOptionsFor(world));
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("--agents gemini-cli wires Gemini CLI only; uninstall removes the file it created", async () => {
  await withWorld(async (world) => {
    const before = snapshot(world.root);
    await install({ ...optionsFor(world, { agents: ["gemini-cli"] }), ...QUIET });
    const files = Object.entries(snapshot(world.root))
      .filter(([f, content]) => content !== "<dir>" && !f.startsWith("home/.kiro-learn/"))
      .map(([f]) => f);
    assert.deepEqual(files, [SETTINGS]);
    await uninstall(uninstallOptionsFor(world));
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("a Gemini settings.json with comments is left alone, said clearly; the others install", async () => {
  await withWorld(async (world) => {
    const jsonc = '{\n  // my theme\n  "ui": { "theme": "Default" }\n}\n';
    await writeGemini(world, jsonc);
    const lines: string[] = [];
    const plan = await install({ ...optionsFor(world), print: (l) => lines.push(l) });
    assert.deepEqual(plan.skipped, ["gemini-cli"]);
    assert.match(lines.join("\n"), /Gemini CLI skipped[^]*comments/);
    assert.equal(await Deno.readTextFile(`${world.root}/${SETTINGS}`), jsonc);
  });
});

Deno.test("the MCP entry is the relay when the install has one", () => {
  const relay = { command: "sh", args: ["-c", "exec /d/bin/mcp-relay"] };
  const doc = GEMINI_CLI.target("gemini-settings-user", "/h/.gemini/settings.json", {
    hooks: { ...TEST_HOOKS, mcpRelay: relay },
  }).install(undefined);
  assert.deepEqual((doc.mcpServers as Json)["kiro-learn-memory"], relay);
});
