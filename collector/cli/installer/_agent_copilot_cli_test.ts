import assert from "node:assert/strict";
import { COPILOT_HOOK_EVENTS } from "@kiro-learn/core/hooks";
import { COPILOT_CLI, COPILOT_HOOK_TIMEOUT_SEC } from "./_agent_copilot_cli.ts";
import { install, uninstall } from "./install.ts";
import { copilotHome, ourHookCommands } from "./_targets.ts";
import { doctor } from "./doctor.ts";
import {
  checkAgent,
  COMMANDS,
  makeWorld,
  optionsFor,
  readJson,
  snapshot,
  TEST_HOOKS,
  type World,
} from "./_test_support.ts";

const quiet = { print: () => {} };
const HOOKS = "home/.copilot/hooks/kiro-learn.json";
const MCP = "home/.copilot/mcp-config.json";
type Json = Record<string, unknown>;

// What a Copilot CLI user's folder may hold: a hook file of their own beside ours, and their own
// MCP server (as `copilot mcp add` writes it) in a file with 4-space indentation and no final
// newline.
const FOREIGN_HOOKS = JSON.stringify({
  version: 1,
  hooks: { userPromptSubmitted: [{ type: "command", bash: "~/bin/audit.sh", timeoutSec: 5 }] },
}) + "\n";
const FOREIGN_MCP = JSON.stringify(
  {
    mcpServers: {
      github: { tools: ["*"], type: "local", command: "gh-mcp", args: ["--stdio"] },
    },
  },
  null,
  4,
);

async function withWorld(fn: (world: World) => Promise<void>): Promise<void> {
  const world = await makeWorld();
  try {
    await fn(world);
  } finally {
    await world.cleanup();
  }
}

async function writeForeign(world: World): Promise<void> {
  await Deno.mkdir(`${world.home}/.copilot/hooks`, { recursive: true });
  await Deno.writeTextFile(`${world.home}/.copilot/hooks/audit.json`, FOREIGN_HOOKS);
  await Deno.writeTextFile(`${world.root}/${MCP}`, FOREIGN_MCP);
}

const uninstallAll = (world: World) =>
  uninstall({ home: world.home, projectDir: world.project, dataDir: world.dataDir, ...quiet });

Deno.test("COPILOT_CLI: owns its files alone; install, read back and strip agree; doctor stays in place", () => {
  checkAgent(COPILOT_CLI, {
    files: [
      ["copilot-hooks", "/h/.copilot/hooks/kiro-learn.json"],
      ["copilot-mcp-user", "/h/.copilot/mcp-config.json"],
    ],
  });
});

Deno.test("the hook file: one command hook per event, each naming its event; the MCP server is local", () => {
  const doc = COPILOT_CLI.target("copilot-hooks", "/h/.copilot/hooks/kiro-learn.json", {
    hooks: TEST_HOOKS,
  }).install(undefined);
  assert.equal(doc.version, 1);
  const hooks = doc.hooks as Record<string, Json[]>;
  assert.deepEqual(Object.keys(hooks), [...COPILOT_HOOK_EVENTS]);
  for (const event of COPILOT_HOOK_EVENTS) {
    assert.deepEqual(hooks[event], [{
      type: "command",
      bash: TEST_HOOKS.copilotCli(event),
      timeoutSec: COPILOT_HOOK_TIMEOUT_SEC,
    }]);
  }
  const found = ourHookCommands("copilot-hooks", doc, TEST_HOOKS.known);
  assert.deepEqual([...found.keys()], [...COPILOT_HOOK_EVENTS]);
  const mcp = COPILOT_CLI.target("copilot-mcp-user", "/h/.copilot/mcp-config.json", {
    hooks: TEST_HOOKS,
  }).install(undefined);
  assert.deepEqual((mcp.mcpServers as Json)["kiro-learn-memory"], {
    type: "local",
    command: TEST_HOOKS.mcp.command,
    args: TEST_HOOKS.mcp.args,
    tools: ["*"],
  });
  // With the sh relay (every install but `--mcp stdio`), the relay is the entry.
  const relay = { command: "sh", args: ["-c", "exec /d/bin/mcp-relay"] };
  const relayed = COPILOT_CLI.target("copilot-mcp-user", "/h/.copilot/mcp-config.json", {
    hooks: { ...TEST_HOOKS, mcpRelay: relay },
  }).install(undefined);
  assert.deepEqual((relayed.mcpServers as Json)["kiro-learn-memory"], {
    type: "local",
    ...relay,
    tools: ["*"],
  });
});

Deno.test("install keeps the user's Copilot hooks and servers; uninstall restores every byte", async () => {
  await withWorld(async (world) => {
    await writeForeign(world);
    const before = snapshot(world.root);
    await install({ ...optionsFor(world), ...quiet });
    assert.equal(
      await Deno.readTextFile(`${world.home}/.copilot/hooks/audit.json`),
      FOREIGN_HOOKS,
      "the user's hook file is never touched",
    );
    const mcp = readJson(world, MCP);
    assert.deepEqual(Object.keys(mcp.mcpServers as Json), ["github", "kiro-learn-memory"]);
    const text = await Deno.readTextFile(`${world.root}/${MCP}`);
    assert.match(text, /^\{\n {4}"mcpServers"/);
    assert.ok(!text.endsWith("\n"));
    assert.deepEqual(Object.keys(readJson(world, HOOKS).hooks as Json), [...COPILOT_HOOK_EVENTS]);

    const once = snapshot(world.root);
    await install({ ...optionsFor(world), ...quiet });
    assert.deepEqual(snapshot(world.root), once, "a second install changes nothing");

    await uninstallAll(world);
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("--agents copilot-cli wires Copilot CLI only; uninstall removes what it created", async () => {
  await withWorld(async (world) => {
    const before = snapshot(world.root);
    await install({ ...optionsFor(world, { agents: ["copilot-cli"] }), ...quiet });
    const files = Object.entries(snapshot(world.root))
      .filter(([f, content]) => content !== "<dir>" && !f.startsWith("home/.kiro-learn/"))
      .map(([f]) => f)
      .sort();
    assert.deepEqual(files, [HOOKS, MCP].sort());
    await uninstallAll(world);
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("a broken mcp-config.json is left alone, said clearly; the others install", async () => {
  await withWorld(async (world) => {
    await Deno.mkdir(`${world.home}/.copilot`, { recursive: true });
    await Deno.writeTextFile(`${world.root}/${MCP}`, "{ oops");
    const lines: string[] = [];
    const plan = await install({ ...optionsFor(world), print: (l) => lines.push(l) });
    assert.deepEqual(plan.skipped, ["copilot-cli"]);
    assert.match(lines.join("\n"), /Copilot CLI skipped/);
    assert.equal(await Deno.readTextFile(`${world.root}/${MCP}`), "{ oops");
  });
});

Deno.test("COPILOT_HOME: Copilot CLI's folder when set and absolute, else ~/.copilot", () => {
  assert.equal(copilotHome("/h", {}), "/h/.copilot");
  assert.equal(copilotHome("/h", { COPILOT_HOME: "" }), "/h/.copilot");
  // Copilot CLI refuses a relative COPILOT_HOME: nothing of ours goes there either.
  assert.equal(copilotHome("/h", { COPILOT_HOME: "cfg" }), "/h/.copilot");
  assert.equal(copilotHome("/h", { COPILOT_HOME: "/srv/cfg/../copilot/" }), "/srv/copilot");
});

Deno.test("install, doctor and uninstall follow COPILOT_HOME; nothing goes to ~/.copilot", async () => {
  await withWorld(async (world) => {
    // Outside HOME, as a user who keeps Copilot's state elsewhere would set it.
    const dir = `${world.root}/copilot-home`;
    const before = snapshot(world.root);
    await install({
      ...optionsFor(world, { agents: ["copilot-cli"], copilotHome: dir }),
      ...quiet,
    });
    assert.deepEqual(
      Object.keys(readJson(world, "copilot-home/hooks/kiro-learn.json").hooks as Json),
      [...COPILOT_HOOK_EVENTS],
    );
    assert.ok(
      (readJson(world, "copilot-home/mcp-config.json").mcpServers as Json)["kiro-learn-memory"],
    );
    await assert.rejects(() => Deno.stat(`${world.home}/.copilot`));
    const report = await doctor({
      home: world.home,
      projectDir: world.project,
      dataDir: world.dataDir,
      env: { PATH: "", COPILOT_HOME: dir },
      commands: COMMANDS,
      probeHealth: () => Promise.resolve(null),
      print: () => {},
    });
    // Doctor reads the hook file in COPILOT_HOME (these test commands name no real files).
    const hooks = report.checks.find((c) => c.name === "hooks Copilot CLI")!;
    assert.ok(
      hooks.message.includes(`${dir}/hooks/kiro-learn.json run missing files`),
      hooks.message,
    );
    // Uninstall with the same COPILOT_HOME takes our files and the folders install made.
    await uninstall({
      home: world.home,
      projectDir: world.project,
      dataDir: world.dataDir,
      copilotHome: dir,
      ...quiet,
    });
    assert.deepEqual(snapshot(world.root), before);
  });
});
