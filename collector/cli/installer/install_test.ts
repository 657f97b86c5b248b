import assert from "node:assert/strict";
import { join } from "node:path";
import { InstallError } from "./errors.ts";
import { install, uninstall } from "./install.ts";
import { MANIFEST_FILE } from "./manifest.ts";
import { HOOK_MARKER } from "./shell.ts";
import { CLAUDE_HOOKS, codexHookHash } from "./_targets.ts";
import {
  collect,
  existsAt,
  FOREIGN,
  FOREIGN_CHAT_AGENT,
  optionsFor,
  parseToml,
  QUIET,
  readJson,
  snapshot,
  uninstallOptionsFor,
  withWorld,
  writeFiles,
} from "./_test_support.ts";

type Json = Record<string, unknown>;

function without(doc: Json, ...keys: string[]): Json {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => !keys.includes(key)));
}

function ourCount(value: unknown): number {
  return (JSON.stringify(value).match(new RegExp(HOOK_MARKER, "g")) ?? []).length;
}

Deno.test("install on a fresh home writes every piece, with quoted commands", async () => {
  await withWorld(async (world) => {
    const plan = await install({ ...optionsFor(world), ...QUIET });
    assert.equal(plan.kiroFormat?.format, "v3");
    for (
      const rel of [
        "home/.kiro/agents/kiro-learn-compressor.json",
        "home/.kiro/agents/kiro-learn-reconciler.json",
        "home/.kiro/agents/kiro-learn-compactor.json",
        "home/code/app/.kiro/hooks/kiro-learn.json",
        "home/code/app/.kiro/settings/mcp.json",
        "home/.claude/settings.json",
        "home/.claude.json",
        `home/.kiro-learn/${MANIFEST_FILE}`,
        "home/.kiro-learn/settings.json",
      ]
    ) assert.ok(existsAt(world, rel), rel);
    assert.ok(!existsAt(world, "home/.kiro/agents/kiro-learn.json"));

    const compressor = readJson(world, "home/.kiro/agents/kiro-learn-compressor.json");
    assert.deepEqual(compressor.tools, []);
    assert.equal(compressor.model, "claude-haiku-4.5");

    const v3 = readJson(world, "home/code/app/.kiro/hooks/kiro-learn.json");
    assert.equal(v3.version, "v1");
    const v3hooks = v3.hooks as Json[];
    assert.deepEqual(v3hooks.map((h) => h.trigger), [
      "SessionStart",
      "UserPromptSubmit",
      "PostToolUse",
      "Stop",
    ]);
    // Kiro v3 matchers are regexes and `*` is not one: the tool hook has none (every tool).
    assert.equal(v3hooks[2].matcher, undefined);
    const command = (v3hooks[0].action as Json).command as string;
    assert.equal(
      command,
      `'/opt/kiro learn/bin/deno' run -A '/opt/kiro learn/it'\\''s/shims/kiro-cli.ts' --agent-pid=$PPID || true ${HOOK_MARKER}`,
    );
    assert.ok(!JSON.stringify(v3).includes("cache"));

    const claude = readJson(world, "home/.claude/settings.json");
    const events = claude.hooks as Record<string, Json[]>;
    // No tool hooks: the turn's end (Stop) reads the turn's tool uses from the transcript.
    assert.deepEqual(Object.keys(events), ["SessionStart", "UserPromptSubmit", "Stop"]);
    assert.equal(events.Stop[0].matcher, undefined);
    const handler = (events.Stop[0].hooks as Json[])[0];
    assert.equal(handler.type, "command");
    assert.ok((handler.command as string).includes("shims/claude-code.ts"));
    assert.equal(typeof handler.timeout, "number");

    const claudeMcp = readJson(world, "home/.claude.json").mcpServers as Json;
    assert.deepEqual(claudeMcp["kiro-learn-memory"], {
      type: "stdio",
      command: "/opt/kiro learn/bin/deno",
      args: ["run", "-A", "/opt/kiro learn/mcp/main.ts"],
    });
    const kiroMcp = readJson(world, "home/code/app/.kiro/settings/mcp.json").mcpServers as Json;
    assert.deepEqual(Object.keys(kiroMcp), ["kiro-learn-memory"]);

    const dataMode = (await Deno.stat(world.dataDir)).mode! & 0o777;
    assert.equal(dataMode, 0o700);
    assert.equal((await Deno.stat(join(world.dataDir, MANIFEST_FILE))).mode! & 0o777, 0o600);
  });
});

Deno.test("install keeps every foreign hook, server and key, and leaves other files alone", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    const before = snapshot(world.root);
    await install({ ...optionsFor(world), ...QUIET });
    const after = snapshot(world.root);

    // Files install has no business with are byte-identical.
    for (
      const rel of [
        "home/.kiro/agents/reviewer.json",
        "home/code/app/.kiro/hooks/lint.json",
        "home/code/app/.mcp.json",
        "home/code/app/.claude/settings.json",
      ]
    ) assert.equal(after[rel], before[rel], rel);

    const original = FOREIGN["home/.claude/settings.json"] as Json;
    const claude = readJson(world, "home/.claude/settings.json");
    assert.deepEqual(without(claude, "hooks"), without(original, "hooks"));
    assert.deepEqual(Object.keys(claude), Object.keys(original));
    const events = claude.hooks as Record<string, Json[]>;
    const foreignHooks = original.hooks as Record<string, Json[]>;
    // Foreign groups come first, untouched; ours are appended after them.
    assert.deepEqual(events.PostToolUse, foreignHooks.PostToolUse);
    assert.deepEqual(events.Stop.slice(0, 1), foreignHooks.Stop);
    assert.deepEqual(events.Notification, []);
    assert.equal(ourCount(events.Stop), 1);
    assert.equal(ourCount(events), CLAUDE_HOOKS.length);

    const claudeJson = readJson(world, "home/.claude.json");
    const originalJson = FOREIGN["home/.claude.json"] as Json;
    assert.deepEqual(without(claudeJson, "mcpServers"), without(originalJson, "mcpServers"));
    assert.deepEqual(
      without(claudeJson.mcpServers as Json, "kiro-learn-memory"),
      originalJson.mcpServers,
    );

    const kiroMcp = readJson(world, "home/code/app/.kiro/settings/mcp.json").mcpServers as Json;
    assert.deepEqual(
      without(kiroMcp, "kiro-learn-memory"),
      (FOREIGN["home/code/app/.kiro/settings/mcp.json"] as Json).mcpServers,
    );
  });
});

Deno.test("installing twice gives byte-identical files and an empty second plan", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    await install({ ...optionsFor(world, { kiroIdeLegacy: true }), ...QUIET });
    const once = snapshot(world.root);
    const second = await install({ ...optionsFor(world, { kiroIdeLegacy: true }), ...QUIET });
    assert.deepEqual(snapshot(world.root), once);
    assert.deepEqual(second.actions, []);
    assert.ok(second.unchanged.length >= 9);
  });
});

Deno.test("install then uninstall restores every original byte and removes what it created", async () => {
  for (const kiroFormat of ["v2", "v3"] as const) {
    for (const scope of ["user", "project"] as const) {
      await withWorld(async (world) => {
        await writeFiles(world, {
          ...FOREIGN,
          "home/.kiro/agents/kiro-learn.json": FOREIGN_CHAT_AGENT,
        });
        const before = snapshot(world.root);
        await install({
          ...optionsFor(world, { kiroFormat, scope, kiroIdeLegacy: true }),
          ...QUIET,
        });
        assert.notDeepEqual(snapshot(world.root), before);
        await uninstall(uninstallOptionsFor(world));
        assert.deepEqual(snapshot(world.root), before, `${kiroFormat} ${scope}`);
      });
    }
  }
});

Deno.test("uninstall on a home that had nothing leaves nothing behind", async () => {
  await withWorld(async (world) => {
    const before = snapshot(world.root);
    await install({ ...optionsFor(world, { scope: "project", kiroIdeLegacy: true }), ...QUIET });
    await uninstall(uninstallOptionsFor(world));
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("uninstall --keep-data keeps the data dir but drops the install record", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    await install({ ...optionsFor(world), ...QUIET });
    await Deno.writeTextFile(join(world.dataDir, "kiro-learn.db"), "data");
    await uninstall(uninstallOptionsFor(world, { keepData: true }));
    assert.ok(existsAt(world, "home/.kiro-learn/kiro-learn.db"));
    assert.ok(existsAt(world, "home/.kiro-learn/settings.json"));
    assert.ok(!existsAt(world, `home/.kiro-learn/${MANIFEST_FILE}`));
    assert.ok(existsAt(world, "home/.claude/settings.json"));
    assert.equal(ourCount(readJson(world, "home/.claude/settings.json")), 0);
  });
});

Deno.test("an unparsable config skips its agent, naming file and problem; the others install", async () => {
  await withWorld(async (world) => {
    const broken = '{\n  "mcpServers": {\n    "x": {},\n  }\n}\n';
    await writeFiles(world, { ...FOREIGN, "home/code/app/.kiro/settings/mcp.json": broken });
    const before = snapshot(world.root);
    const plan = await install({ ...optionsFor(world), ...QUIET });
    assert.deepEqual(plan.skipped, ["kiro"]);
    const warning = plan.warnings.find((w) => w.startsWith("Kiro skipped")) ?? "";
    assert.match(warning, /\.kiro\/settings\/mcp\.json is not valid JSON/);
    assert.match(warning, /line 4 column 3/);
    const after = snapshot(world.root);
    const kiroFiles = (files: Record<string, string>) =>
      Object.entries(files).filter(([path]) => path.includes(".kiro/"));
    assert.deepEqual(kiroFiles(after), kiroFiles(before), "no Kiro file touched");
    assert.notDeepEqual(after, before, "Claude Code was installed");
    await assert.rejects(
      () => uninstall({ home: world.home, projectDir: world.project, ...QUIET }),
      InstallError,
    );
  });
});

Deno.test("every broken file is reported at once", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, {
      "home/.claude/settings.json": "{ nope",
      "home/.claude.json": "[]",
      "home/code/app/.kiro/hooks/kiro-learn.json": "",
      "home/.gemini/settings.json": "{ oops",
    });
    // Only the agents whose files are broken: an agent with sound files would be installed.
    const agents = ["kiro", "claude-code", "gemini-cli"] as const;
    await assert.rejects(
      () => install({ ...optionsFor(world), agents, ...QUIET }),
      (error: unknown) => {
        assert.ok(error instanceof InstallError);
        assert.equal(error.problems.length, 4);
        return true;
      },
    );
  });
});

Deno.test("a key of the wrong type aborts with the file and the key", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, { "home/.claude/settings.json": { hooks: "none" } });
    const before = snapshot(world.root);
    await assert.rejects(
      () => install({ ...optionsFor(world), ...QUIET }),
      /\.claude\/settings\.json: "hooks" should be an object but is a string/,
    );
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("switching v2 and v3: the hook file stays for Kiro IDE 1.x; the agent's hooks only with v2", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, { "home/.kiro/agents/kiro-learn.json": FOREIGN_CHAT_AGENT });
    const agentBytes = Deno.readTextFileSync(join(world.home, ".kiro/agents/kiro-learn.json"));
    const captureConfigs = () =>
      [
        existsAt(world, "home/code/app/.kiro/hooks/kiro-learn.json") &&
        ourCount(readJson(world, "home/code/app/.kiro/hooks/kiro-learn.json")) > 0,
        ourCount(readJson(world, "home/.kiro/agents/kiro-learn.json").hooks) > 0,
      ].filter(Boolean).length;

    await install({ ...optionsFor(world, { kiroFormat: "v3" }), ...QUIET });
    assert.equal(captureConfigs(), 1);
    assert.equal(
      Deno.readTextFileSync(join(world.home, ".kiro/agents/kiro-learn.json")),
      agentBytes,
    );

    const hookFile = Deno.readTextFileSync(
      join(world.home, "code/app/.kiro/hooks/kiro-learn.json"),
    );
    await install({ ...optionsFor(world, { kiroFormat: "v2" }), ...QUIET });
    // Kiro CLI 2.x reads only the agent; the hook file is Kiro IDE 1.x's (and Kiro CLI 3.x's),
    // so v2 keeps it, unchanged.
    assert.equal(captureConfigs(), 2);
    assert.equal(
      Deno.readTextFileSync(join(world.home, "code/app/.kiro/hooks/kiro-learn.json")),
      hookFile,
      "the v3 hook file Kiro IDE 1.x reads is kept",
    );
    const agent = readJson(world, "home/.kiro/agents/kiro-learn.json");
    const hooks = agent.hooks as Record<string, Json[]>;
    assert.deepEqual(hooks.agentSpawn[0], FOREIGN_CHAT_AGENT.hooks.agentSpawn[0]);
    assert.deepEqual(hooks.preToolUse, FOREIGN_CHAT_AGENT.hooks.preToolUse);
    assert.equal(hooks.postToolUse[0].matcher, "*");
    assert.equal(ourCount(hooks), 4);
    assert.deepEqual(
      Object.keys(agent.mcpServers as Json),
      ["fetch", "kiro-learn-memory"],
    );
    // Fields of an existing agent are the user's: not renamed, re-described or re-prompted.
    assert.deepEqual(
      without(agent, "hooks", "mcpServers"),
      without(FOREIGN_CHAT_AGENT, "hooks", "mcpServers"),
    );

    await install({ ...optionsFor(world, { kiroFormat: "v3" }), ...QUIET });
    assert.equal(captureConfigs(), 1);
    assert.equal(
      Deno.readTextFileSync(join(world.home, ".kiro/agents/kiro-learn.json")),
      agentBytes,
    );
  });
});

Deno.test("v2 with kiro-cli seeds the agent, and uninstall deletes the agent it created", async () => {
  await withWorld(async (world) => {
    const seed = {
      name: "kiro_default",
      description: "Default agent",
      prompt: "You are Kiro.",
      tools: ["*"],
      allowedTools: ["fs_read"],
      hooks: { stop: [{ command: "echo bye" }] },
    };
    let seeded = 0;
    await install({
      ...optionsFor(world, {
        kiroCliVersion: "kiro-cli 2.4.0",
        seedAgent: () => {
          seeded++;
          return Promise.resolve({ agent: structuredClone(seed) });
        },
      }),
      ...QUIET,
    });
    const agent = readJson(world, "home/.kiro/agents/kiro-learn.json");
    assert.equal(agent.name, "kiro-learn");
    assert.match(
      agent.prompt as string,
      /^You are Kiro\.\n\nYou are running as the kiro-learn agent/,
    );
    assert.deepEqual((agent.allowedTools as string[])[0], "fs_read");
    assert.ok((agent.allowedTools as string[]).includes("@kiro-learn-memory/search_memory"));
    const hooks = agent.hooks as Record<string, Json[]>;
    assert.deepEqual(hooks.stop[0], { command: "echo bye" });
    assert.equal(ourCount(hooks.stop), 1);

    // A reinstall merges into the file it made instead of seeding again.
    const bytes = snapshot(world.root);
    await install({ ...optionsFor(world, { kiroCliVersion: "kiro-cli 2.4.0" }), ...QUIET });
    assert.equal(seeded, 1);
    assert.deepEqual(snapshot(world.root), bytes);

    await uninstall(uninstallOptionsFor(world));
    assert.ok(!existsAt(world, "home/.kiro/agents/kiro-learn.json"));
    assert.ok(!existsAt(world, "home/.kiro"));
  });
});

Deno.test("v2 without a seed writes the template agent and warns", async () => {
  await withWorld(async (world) => {
    const out = collect();
    await install({
      ...optionsFor(world, {
        kiroFormat: "v2",
        seedAgent: () => Promise.resolve({ agent: null, warning: "kiro-cli agent create failed" }),
      }),
      print: out.print,
    });
    const agent = readJson(world, "home/.kiro/agents/kiro-learn.json");
    assert.deepEqual(agent.tools, ["*"]);
    assert.equal(ourCount(agent.hooks), 4);
    assert.ok(out.lines.some((l) => l.startsWith("warning: kiro-cli agent create failed")));
  });
});

Deno.test("install says a Kiro CLI 2.x user must select the kiro-learn agent, and only for v2", async () => {
  await withWorld(async (world) => {
    const v2 = collect();
    await install({ ...optionsFor(world, { kiroFormat: "v2" }), print: v2.print });
    const step = v2.lines.find((l) => l.startsWith("next: "));
    assert.ok(step, v2.lines.join("\n"));
    assert.match(step, /only in the `kiro-learn` agent/);
    assert.match(step, /`kiro-cli chat --agent kiro-learn`/);
    assert.match(step, /`\/agent swap kiro-learn`/);
    assert.match(step, /`kiro-cli settings chat\.defaultAgent kiro-learn`/);
    const v3 = collect();
    await install({ ...optionsFor(world, { kiroFormat: "v3" }), print: v3.print });
    assert.ok(!v3.lines.some((l) => /--agent kiro-learn/.test(l)), v3.lines.join("\n"));
  });
});

Deno.test("switching the Claude Code scope moves the hooks and the MCP server", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    const before = snapshot(world.root);
    await install({ ...optionsFor(world, { scope: "user" }), ...QUIET });
    await install({ ...optionsFor(world, { scope: "project" }), ...QUIET });
    const now = snapshot(world.root);
    assert.equal(now["home/.claude/settings.json"], before["home/.claude/settings.json"]);
    assert.equal(now["home/.claude.json"], before["home/.claude.json"]);
    assert.equal(
      ourCount(readJson(world, "home/code/app/.claude/settings.json")),
      CLAUDE_HOOKS.length,
    );
    const project = readJson(world, "home/code/app/.mcp.json").mcpServers as Json;
    assert.deepEqual(Object.keys(project), ["db", "kiro-learn-memory"]);
  });
});

Deno.test("legacy IDE hook files come with the flag and go without it", async () => {
  await withWorld(async (world) => {
    await install({ ...optionsFor(world, { kiroIdeLegacy: true }), ...QUIET });
    const prompt = readJson(world, "home/code/app/.kiro/hooks/kiro-learn-prompt.kiro.hook");
    assert.deepEqual(prompt.when, { type: "promptSubmit" });
    const then = prompt.then as Json;
    assert.equal(then.type, "runCommand");
    assert.ok(
      (then.command as string).includes(
        "shims/kiro-ide.ts' promptSubmit --agent-pid=$PPID || true",
      ),
    );
    const tool = readJson(world, "home/code/app/.kiro/hooks/kiro-learn-tool.kiro.hook");
    assert.deepEqual(tool.when, { type: "postToolUse", toolTypes: ["*"] });
    const stop = readJson(world, "home/code/app/.kiro/hooks/kiro-learn-stop.kiro.hook");
    assert.deepEqual(stop.when, { type: "agentStop" });

    await install({ ...optionsFor(world, { kiroIdeLegacy: false }), ...QUIET });
    for (const name of ["prompt", "tool", "stop"]) {
      assert.ok(!existsAt(world, `home/code/app/.kiro/hooks/kiro-learn-${name}.kiro.hook`));
    }
    assert.ok(existsAt(world, "home/code/app/.kiro/hooks/kiro-learn.json"));
  });
});

Deno.test("a dry run prints the plan and writes nothing", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    const before = snapshot(world.root);
    const out = collect();
    const plan = await install({ ...optionsFor(world), dryRun: true, print: out.print });
    assert.deepEqual(snapshot(world.root), before);
    assert.ok(plan.actions.length > 0);
    assert.match(out.lines[0], /dry run/);
    assert.ok(
      out.lines.some((l) => /update\s+~\/\.claude\/settings\.json: add Claude Code hooks/.test(l)),
    );
    assert.ok(
      out.lines.some((l) => /create\s+~\/code\/app\/\.kiro\/hooks\/kiro-learn\.json/.test(l)),
    );

    await install({ ...optionsFor(world), ...QUIET });
    const installed = snapshot(world.root);
    await uninstall({
      home: world.home,
      projectDir: world.project,
      dryRun: true,
      print: out.print,
    });
    assert.deepEqual(snapshot(world.root), installed);
  });
});

Deno.test("a reinstall replaces old kiro-learn hooks in place, including Node-edition ones", async () => {
  await withWorld(async (world) => {
    const old = `"${world.home}/.kiro-learn/bin/shim" || true`;
    await writeFiles(world, {
      "home/.claude/settings.json": {
        hooks: {
          Stop: [
            { hooks: [{ type: "command", command: `/old/path/shim.ts || true ${HOOK_MARKER}` }] },
            { hooks: [{ type: "command", command: "say done" }] },
          ],
        },
      },
      "home/.kiro/agents/kiro-learn.json": {
        name: "kiro-learn",
        hooks: { stop: [{ command: old }, { command: "echo mine" }] },
      },
    });
    await install({ ...optionsFor(world, { kiroFormat: "v2" }), ...QUIET });
    const stop = (readJson(world, "home/.claude/settings.json").hooks as Json).Stop as Json[];
    assert.equal(stop.length, 2);
    assert.ok(JSON.stringify(stop[0]).includes("shims/claude-code.ts"));
    assert.equal((stop[1].hooks as Json[])[0].command, "say done");
    const agentStop = (readJson(world, "home/.kiro/agents/kiro-learn.json").hooks as Json)
      .stop as Json[];
    assert.equal(agentStop.length, 2);
    assert.ok((agentStop[0].command as string).includes("shims/kiro-cli.ts"));
    assert.equal(agentStop[1].command, "echo mine");
  });
});

Deno.test("a reinstall drops an older version's SessionEnd hook, and uninstall keeps the user's empty lists", async () => {
  await withWorld(async (world) => {
    const mine = { hooks: [{ type: "command", command: "say hi" }] };
    await writeFiles(world, {
      "home/.claude/settings.json": {
        hooks: {
          Stop: [],
          SessionEnd: [{
            hooks: [{ type: "command", command: `/old/path/shim.ts || true ${HOOK_MARKER}` }],
          }],
          Notification: [mine],
        },
      },
    });
    await install({ ...optionsFor(world, {}), ...QUIET });
    const events = readJson(world, "home/.claude/settings.json").hooks as Json;
    assert.ok(!("SessionEnd" in events), "the older version's SessionEnd hook was left behind");
    assert.equal((events.Stop as Json[]).length, 1);
    await uninstall(uninstallOptionsFor(world));
    assert.deepEqual(readJson(world, "home/.claude/settings.json"), {
      hooks: { Stop: [], Notification: [mine] },
    });
  });
});

Deno.test("uninstall without the install record still removes our entries by their marker", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    await install({ ...optionsFor(world), ...QUIET });
    await Deno.remove(join(world.dataDir, MANIFEST_FILE));
    await uninstall(uninstallOptionsFor(world));
    for (const [rel, value] of Object.entries(FOREIGN)) {
      assert.deepEqual(readJson(world, rel), value, rel);
    }
    assert.equal(ourCount(readJson(world, "home/.claude/settings.json")), 0);
    for (const name of ["compressor", "reconciler", "compactor"]) {
      assert.ok(!existsAt(world, `home/.kiro/agents/kiro-learn-${name}.json`));
    }
  });
});

Deno.test("files in other layouts are rewritten in their own layout and restored exactly", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, {
      "home/.claude/settings.json": JSON.stringify({ model: "opus", hooks: {} }, null, 4) + "\n",
      "home/.claude.json": JSON.stringify({ numStartups: 1 }),
      "home/code/app/.kiro/settings/mcp.json": JSON.stringify({ mcpServers: {} }, null, "\t"),
    });
    const before = snapshot(world.root);
    await install({ ...optionsFor(world), ...QUIET });
    assert.match(
      Deno.readTextFileSync(join(world.home, ".claude/settings.json")),
      /^{\n {4}"model"/,
    );
    assert.ok(!Deno.readTextFileSync(join(world.home, ".claude.json")).includes("\n"));
    await uninstall(uninstallOptionsFor(world));
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("a symlinked settings file stays a symlink", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, { "dotfiles/claude-settings.json": { model: "opus" } });
    await Deno.mkdir(join(world.home, ".claude"), { recursive: true });
    await Deno.symlink(
      join(world.root, "dotfiles/claude-settings.json"),
      join(world.home, ".claude/settings.json"),
    );
    const before = snapshot(world.root);
    await install({ ...optionsFor(world), ...QUIET });
    assert.ok((await Deno.lstat(join(world.home, ".claude/settings.json"))).isSymlink);
    assert.equal(ourCount(readJson(world, "dotfiles/claude-settings.json")), CLAUDE_HOOKS.length);
    await uninstall(uninstallOptionsFor(world));
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("uninstall refuses to delete a data dir that is the home folder", async () => {
  await withWorld(async (world) => {
    const out = collect();
    const plan = await uninstall({
      home: world.home,
      projectDir: world.project,
      dataDir: world.home,
      print: out.print,
    });
    assert.ok(!plan.actions.some((a) => a.kind === "remove-dir" && a.recursive));
    assert.ok(out.lines.some((l) => /not removing the data dir/.test(l)));
    assert.ok(existsAt(world, "home"));
  });
});

Deno.test("uninstall deletes no file it did not create, whatever the install record says", async () => {
  await withWorld(async (world) => {
    await install({ ...optionsFor(world), ...QUIET });
    // The user's own files: outside every place install writes, and at one of them.
    const theirs: Record<string, unknown> = {
      "home/docker-config.json": { auths: { "registry.example": { auth: "c2VjcmV0" } } },
      "home/code/app/package.json": { name: "app", version: "1.0.0" },
      "home/code/other/.mcp.json": { mcpServers: { theirs: { command: "their-server" } } },
    };
    await writeFiles(world, theirs);
    await Deno.mkdir(join(world.home, "Documents"));
    // A record anyone but install wrote (a daemon with its exact flags once could): each file
    // "created" by install, one with a made-up hash, and a folder of the user's.
    const file = join(world.dataDir, MANIFEST_FILE);
    const record = JSON.parse(await Deno.readTextFile(file));
    const forged = (rel: string, kind: string, extra: Json = {}) =>
      record.files[join(world.root, rel)] = { kind, created: true, keep: [], ...extra };
    forged("home/docker-config.json", "kiro-chat-agent");
    forged("home/code/app/package.json", "kiro-chat-agent");
    forged("home/code/other/.mcp.json", "claude-mcp-project", { sha256: "0".repeat(64) });
    record.dirs.push(join(world.home, "Documents"));
    await Deno.writeTextFile(file, JSON.stringify(record));
    const before = Object.fromEntries(
      Object.keys(theirs).map((rel) => [rel, Deno.readTextFileSync(join(world.root, rel))]),
    );
    const out = collect();
    await uninstall(uninstallOptionsFor(world, { keepData: true, print: out.print }));
    for (const [rel, text] of Object.entries(before)) {
      assert.equal(Deno.readTextFileSync(join(world.root, rel)), text, `${rel} changed`);
    }
    assert.ok((await Deno.stat(join(world.home, "Documents"))).isDirectory);
    assert.match(out.lines.join("\n"), /not touching .*docker-config\.json/);
    // What install did create went.
    assert.ok(!existsAt(world, "home/.kiro/agents/kiro-learn-compressor.json"));
    assert.ok(!existsAt(world, "home/.claude/settings.json"));
  });
});

Deno.test("uninstall keeps a file install created once the user changed it, taking out only ours", async () => {
  await withWorld(async (world) => {
    await install({ ...optionsFor(world, { kiroFormat: "v2" }), ...QUIET });
    const rel = "home/.kiro/agents/kiro-learn.json";
    const doc = readJson(world, rel) as { mcpServers: Record<string, unknown> };
    doc.mcpServers["their-server"] = { command: "their-server" };
    await writeFiles(world, { [rel]: doc });
    await uninstall(uninstallOptionsFor(world, { keepData: true }));
    const left = readJson(world, rel) as { mcpServers: Record<string, unknown> };
    assert.deepEqual(left.mcpServers, { "their-server": { command: "their-server" } });
  });
});

const CODEX_SAMPLES = new URL("./testdata/codex/", import.meta.url).pathname;
const FOREIGN_CODEX_HOOKS = {
  hooks: {
    Stop: [{ hooks: [{ type: "command", command: "~/bin/notify-done", timeout: 5 }] }],
  },
};

Deno.test("Codex CLI: install adds our hooks, their trust and the MCP server; uninstall restores every byte", async () => {
  for (const sample of ["typical", "hooks_and_trust", "crlf_no_final_newline"]) {
    await withWorld(async (world) => {
      await writeFiles(world, {
        "home/.codex/config.toml": Deno.readTextFileSync(`${CODEX_SAMPLES}${sample}.toml`),
        "home/.codex/hooks.json": FOREIGN_CODEX_HOOKS,
      });
      const before = snapshot(world.root);
      const original = before["home/.codex/config.toml"];
      await install({ ...optionsFor(world), ...QUIET });
      const hooksPath = join(world.home, ".codex", "hooks.json");
      const hooks = readJson(world, "home/.codex/hooks.json").hooks as Record<string, Json[]>;
      assert.deepEqual(Object.keys(hooks), ["Stop", "UserPromptSubmit"]);
      assert.deepEqual(
        hooks.Stop[0].hooks,
        FOREIGN_CODEX_HOOKS.hooks.Stop[0].hooks,
        "foreign first",
      );
      assert.equal(ourCount(hooks), 2);
      const config = Deno.readTextFileSync(join(world.home, ".codex", "config.toml"));
      assert.ok(config.startsWith(original), `${sample}: the user's part is untouched`);
      const parsed = await parseToml(config);
      const state = (parsed.hooks as Json).state as Record<string, Json>;
      for (const [event, group] of [["stop", 1], ["user_prompt_submit", 0]] as const) {
        const key = `${hooksPath}:${event}:${group}:0`;
        const handler = (event === "stop" ? hooks.Stop[1] : hooks.UserPromptSubmit[0])
          .hooks as Json[];
        assert.equal(
          state[key]?.trusted_hash,
          codexHookHash(event === "stop" ? "Stop" : "UserPromptSubmit", {
            command: handler[0].command as string,
            timeout: handler[0].timeout as number,
          }),
          `${sample}: ${key} trusted`,
        );
      }
      const server = (parsed.mcp_servers as Record<string, Json>)["kiro-learn-memory"];
      assert.equal(typeof server.command, "string", JSON.stringify(server));
      assert.ok(Array.isArray(server.args), JSON.stringify(server));
      const again = await install({ ...optionsFor(world), ...QUIET });
      assert.deepEqual(again.actions, [], `${sample}: a second install changes nothing`);
      await uninstall(uninstallOptionsFor(world));
      assert.deepEqual(snapshot(world.root), before, sample);
    });
  }
});

Deno.test("Codex CLI: a config.toml whose inline table covers our names is refused, nothing written", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, {
      "home/.codex/config.toml": Deno.readTextFileSync(`${CODEX_SAMPLES}inline_hooks_state.toml`),
    });
    const before = snapshot(world.root);
    await assert.rejects(
      () => install({ ...optionsFor(world), ...QUIET }),
      /config\.toml defines hooks\.state \(kiro-learn adds .*invalid TOML.*--agents kiro,claude-code/,
    );
    assert.deepEqual(snapshot(world.root), before);
    // Without Codex, the others install.
    await install({ ...optionsFor(world, { agents: ["kiro", "claude-code"] }), ...QUIET });
    assert.equal(
      Deno.readTextFileSync(join(world.home, ".codex", "config.toml")),
      before["home/.codex/config.toml"],
    );
  });
});

Deno.test("Gemini CLI: a project's uninstall leaves ~/.gemini/settings.json; uninstall of everything removes what install made", async () => {
  await withWorld(async (world) => {
    const before = snapshot(world.root);
    const gemini = "home/.gemini/settings.json";
    await install({ ...optionsFor(world), ...QUIET });
    assert.ok(ourCount(readJson(world, gemini)) > 0, "install wired Gemini CLI");
    const wired = Deno.readTextFileSync(join(world.root, gemini));
    // A project's uninstall: Gemini CLI's user-level file is the user's wiring, left alone.
    await uninstall(uninstallOptionsFor(world, { keepData: true, projectOnly: true }));
    assert.equal(Deno.readTextFileSync(join(world.root, gemini)), wired);
    // Everything: the file and the folder install created go, with no warning that install never
    // puts a file or folder there.
    const out = collect();
    await uninstall(uninstallOptionsFor(world, { print: out.print }));
    assert.doesNotMatch(out.lines.join("\n"), /not touching|not removing/);
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("a project's uninstall of a project that is the home folder leaves Gemini CLI's and Codex CLI's user files", async () => {
  await withWorld(async (world) => {
    await install({ ...optionsFor(world), ...QUIET });
    const files = ["home/.gemini/settings.json", "home/.codex/hooks.json"];
    const wired = files.map((rel) => Deno.readTextFileSync(join(world.root, rel)));
    await uninstall({
      home: world.home,
      projectDir: world.home,
      dataDir: world.dataDir,
      keepData: true,
      projectOnly: true,
      ...QUIET,
    });
    assert.deepEqual(files.map((rel) => Deno.readTextFileSync(join(world.root, rel))), wired);
  });
});

Deno.test("a project's uninstall of the home folder keeps the user-level folders in the install record; a full uninstall then removes them", async () => {
  await withWorld(async (world) => {
    const before = snapshot(world.root);
    await install({ ...optionsFor(world, { projectDir: world.home }), ...QUIET });
    const recorded = (readJson(world, `home/.kiro-learn/${MANIFEST_FILE}`).dirs as string[]).sort();
    await uninstall(uninstallOptionsFor(world, {
      projectDir: world.home,
      keepData: true,
      projectOnly: true,
    }));
    const record = readJson(world, `home/.kiro-learn/${MANIFEST_FILE}`);
    // Only the project's own folders left the record: .kiro/hooks and .kiro/settings.
    const user = [
      ".claude",
      ".codex",
      ".copilot",
      ".copilot/hooks",
      ".gemini",
      ".kiro",
      ".kiro/agents",
    ]
      .map((rel) => join(world.home, rel));
    assert.deepEqual((record.dirs as string[]).sort(), user);
    assert.deepEqual(
      recorded,
      [...user, join(world.home, ".kiro/hooks"), join(world.home, ".kiro/settings")].sort(),
    );
    await uninstall(uninstallOptionsFor(world));
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("CODEX_HOME: install and uninstall use it; one that does not exist leaves Codex out, said clearly", async () => {
  await withWorld(async (world) => {
    const codexHome = join(world.root, "codex-home");
    await Deno.mkdir(codexHome);
    const before = snapshot(world.root);
    await install({ ...optionsFor(world, { codexHome }), ...QUIET });
    assert.ok(existsAt(world, "codex-home/hooks.json"));
    assert.ok(existsAt(world, "codex-home/config.toml"));
    assert.ok(!existsAt(world, "home/.codex"));
    await uninstall(uninstallOptionsFor(world, { codexHome }));
    assert.deepEqual(snapshot(world.root), before);

    const out = collect();
    const plan = await install({
      ...optionsFor(world, { codexHome: join(world.root, "missing") }),
      print: out.print,
    });
    assert.deepEqual(plan.skipped, ["codex"]);
    assert.match(out.lines.join("\n"), /Codex CLI skipped[^]*missing, which does not exist/);
    assert.ok(!existsAt(world, "missing") && !existsAt(world, "home/.codex"));
    assert.ok(existsAt(world, "home/.claude/settings.json"), "the other agents are installed");
  });
});
