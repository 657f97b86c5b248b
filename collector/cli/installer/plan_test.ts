import assert from "node:assert/strict";
import { join } from "node:path";
import { InstallError } from "./errors.ts";
import { MANIFEST_FILE } from "./manifest.ts";
import { dirname } from "node:path";
import { apply, formatPlan, knownDir, knownLocation, planInstall, planUninstall } from "./plan.ts";
import { everyFile, filesOf, installPaths, TARGET_KINDS } from "./_targets.ts";
import { HOOK_MARKER } from "./shell.ts";
import {
  COMMANDS,
  existsAt,
  FOREIGN,
  optionsFor,
  readJson,
  snapshot,
  withWorld,
  writeFiles,
} from "./_test_support.ts";

Deno.test("planning reads but never writes; apply performs it in order", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    const before = snapshot(world.root);
    const plan = await planInstall(optionsFor(world, { kiroIdeLegacy: true }));
    assert.deepEqual(snapshot(world.root), before);
    const last = plan.actions.at(-1)!;
    assert.equal(last.path, join(world.dataDir, MANIFEST_FILE));
    assert.equal(plan.actions.at(-2)!.path, join(world.dataDir, "bin", "start-collector"));
    assert.equal(plan.actions.at(-3)!.path, join(world.dataDir, "settings.json"));
    assert.deepEqual(
      [...new Set(plan.actions.map((a) => a.kind))].sort(),
      ["merge", "write"],
    );
    assert.deepEqual(apply(plan), { applied: plan.actions.length });
    assert.notDeepEqual(snapshot(world.root), before);
    // The starter hooks run: executable by us alone, and a second install leaves it be.
    const starter = join(world.dataDir, "bin", "start-collector");
    assert.equal(Deno.statSync(starter).mode! & 0o777, 0o700);
    const again = await planInstall(optionsFor(world, { kiroIdeLegacy: true }));
    assert.ok(!again.actions.some((a) => a.path === starter));
  });
});

Deno.test("uninstall keeping the data removes the starter: hooks no longer start a collector", async () => {
  await withWorld(async (world) => {
    apply(await planInstall(optionsFor(world)));
    const starter = join(world.dataDir, "bin", "start-collector");
    assert.ok(Deno.statSync(starter).isFile);
    const plan = await planUninstall({ ...optionsFor(world), keepData: true });
    assert.ok(plan.actions.some((a) => a.kind === "delete" && a.path === starter));
    apply(plan);
    assert.throws(() => Deno.statSync(starter), Deno.errors.NotFound);
    assert.ok(Deno.statSync(join(world.dataDir, "settings.json")).isFile, "the data stays");
  });
});

Deno.test("apply refuses a plan whose files changed meanwhile, and writes nothing", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    const plan = await planInstall(optionsFor(world));
    await writeFiles(world, { "home/.claude.json": { changed: true } });
    const before = snapshot(world.root);
    assert.throws(() => apply(plan), (error: unknown) => {
      assert.ok(error instanceof InstallError);
      assert.match(error.message, /\.claude\.json changed after the plan was made/);
      return true;
    });
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("the printed plan uses ~ paths and one verb per action", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    const text = formatPlan(await planInstall(optionsFor(world)), { dryRun: true });
    const lines = text.split("\n");
    assert.equal(lines[0], "kiro-learn install (dry run: nothing will be changed)");
    assert.match(lines[1], /^Kiro CLI hook format: v3 \(kiro-cli not found/);
    for (const line of lines.slice(2)) {
      assert.match(line, /^ {2}(create|update|replace|delete|remove) +~\/\S+: \S/);
    }
  });
});

Deno.test("unusable shim or MCP commands are refused before anything is read", async () => {
  await withWorld(async (world) => {
    for (
      const commands of [
        { ...COMMANDS, mcp: () => [] },
        { ...COMMANDS, shim: () => ["/x", "a\nb"] },
        {
          ...COMMANDS,
          shim: () => {
            throw new TypeError("no shim for that");
          },
        },
      ]
    ) {
      await assert.rejects(() => planInstall(optionsFor(world, { commands })), InstallError);
    }
  });
});

Deno.test("auto picks v2 for kiro-cli 2.x, and a missing kiro-cli means the template agent", async () => {
  await withWorld(async (world) => {
    const v2 = await planInstall(optionsFor(world, { kiroCliVersion: "kiro-cli 2.3.1" }));
    assert.equal(v2.kiroFormat?.format, "v2");
    assert.ok(v2.actions.some((a) => a.path.endsWith("agents/kiro-learn.json")));
    const forced = await planInstall({
      ...optionsFor(world, { kiroFormat: "v2", kiroCliVersion: null }),
      seedAgent: undefined,
    });
    assert.ok(forced.warnings.some((w) => /kiro-cli not found/.test(w)));
  });
});

Deno.test("v2 writes the agent and the hook file Kiro IDE 1.x reads; on kiro-cli 3.x it warns", async () => {
  await withWorld(async (world) => {
    const v2 = await planInstall(optionsFor(world, { kiroCliVersion: "kiro-cli 2.3.1" }));
    const paths = v2.actions.map((a) => a.path);
    assert.ok(paths.some((p) => p.endsWith(".kiro/agents/kiro-learn.json")));
    assert.ok(paths.some((p) => p.endsWith("code/app/.kiro/hooks/kiro-learn.json")));
    assert.ok(!v2.warnings.some((w) => /captured twice/.test(w)), v2.warnings.join("\n"));
    const forced = await planInstall(
      optionsFor(world, { kiroFormat: "v2", kiroCliVersion: "kiro-cli 3.1.0" }),
    );
    assert.ok(
      forced.warnings.some((w) =>
        /kiro-cli 3\.x reads both .* captured twice.*--kiro-format v3/.test(w)
      ),
      forced.warnings.join("\n"),
    );
  });
});

Deno.test("a data dir elsewhere holds the settings and the record", async () => {
  await withWorld(async (world) => {
    const dataDir = join(world.root, "elsewhere", "kl");
    apply(await planInstall({ ...optionsFor(world), dataDir }));
    assert.ok(existsAt(world, "elsewhere/kl/settings.json"));
    assert.ok(existsAt(world, `elsewhere/kl/${MANIFEST_FILE}`));
    assert.ok(!existsAt(world, "home/.kiro-learn"));
  });
});

Deno.test("uninstall cleans every project the record lists, and keeps folders now in use", async () => {
  await withWorld(async (world) => {
    const other = join(world.home, "code", "other");
    await Deno.mkdir(join(other, ".git"), { recursive: true });
    const before = snapshot(world.root);
    apply(await planInstall(optionsFor(world, { scope: "project" })));
    apply(await planInstall({ ...optionsFor(world, { scope: "project" }), projectDir: other }));
    assert.ok(existsAt(world, "home/code/other/.kiro/hooks/kiro-learn.json"));
    // The user starts using a folder kiro-learn created.
    await writeFiles(world, { "home/code/app/.claude/commands/review.md": "review it" });

    apply(
      await planUninstall({ home: world.home, projectDir: world.project, dataDir: world.dataDir }),
    );
    const after = snapshot(world.root);
    assert.deepEqual(
      Object.keys(after).filter((k) => !(k in before)),
      [
        "home/code/app/.claude",
        "home/code/app/.claude/commands",
        "home/code/app/.claude/commands/review.md",
      ],
    );
    assert.ok(!JSON.stringify(after).includes(HOOK_MARKER));
  });
});

Deno.test("uninstall of a home with nothing installed plans nothing", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, FOREIGN);
    const plan = await planUninstall({ home: world.home, projectDir: world.project });
    assert.deepEqual(plan.actions, []);
    assert.match(formatPlan(plan), /nothing to remove/);
    assert.deepEqual(readJson(world, "home/.claude.json"), FOREIGN["home/.claude.json"]);
  });
});

Deno.test("install --agents claude-code wires Claude Code only and leaves every Kiro file alone", async () => {
  await withWorld(async (world) => {
    const plan = await planInstall(optionsFor(world, { agents: ["claude-code"] }));
    const touched = plan.actions.map((a) => a.path).filter((p) => !p.startsWith(world.dataDir));
    assert.ok(touched.length > 0);
    assert.ok(touched.every((p) => /\.claude/.test(p)), touched.join("\n"));
    assert.deepEqual(plan.skipped, []);
  });
});

Deno.test("a file one agent cannot parse skips that agent with a clear message, not the others", async () => {
  await withWorld(async (world) => {
    // Claude Code's settings with a comment: JSONC, which we refuse to rewrite.
    const jsonc = '{\n  // my model\n  "model": "opus"\n}\n';
    await writeFiles(world, { "home/.claude/settings.json": jsonc });
    const plan = await planInstall(optionsFor(world));
    assert.deepEqual(plan.skipped, ["claude-code"]);
    const skip = plan.warnings.find((w) => w.startsWith("Claude Code skipped"));
    assert.ok(skip, plan.warnings.join("\n"));
    assert.match(skip, /settings\.json/);
    assert.match(skip, /comments/);
    assert.ok(!plan.actions.some((a) => /\.claude/.test(a.path)), "no Claude Code file touched");
    assert.ok(plan.actions.some((a) => a.path.endsWith(join(".kiro", "hooks", "kiro-learn.json"))));
    apply(plan);
    assert.equal(
      await Deno.readTextFile(join(world.home, ".claude", "settings.json")),
      jsonc,
      "the unparsable file keeps its bytes",
    );
  });
});

Deno.test("when every chosen agent has an unparsable file, install stops and writes nothing", async () => {
  await withWorld(async (world) => {
    await writeFiles(world, { "home/.claude/settings.json": "{ not json" });
    const before = snapshot(world.root);
    await assert.rejects(
      planInstall(optionsFor(world, { agents: ["claude-code"] })),
      (error: unknown) => {
        assert.ok(error instanceof InstallError);
        assert.match(error.message, /settings\.json/);
        return true;
      },
    );
    assert.deepEqual(snapshot(world.root), before);
  });
});

Deno.test("install writes the port the hooks use into a new settings.json, and warns on a mismatch", async () => {
  await withWorld(async (world) => {
    const collector = { host: "127.0.0.1", port: 23456 };
    apply(await planInstall(optionsFor(world, { collector })));
    const written = readJson(world, "home/.kiro-learn/settings.json") as {
      collector: { port: number };
    };
    assert.equal(written.collector.port, 23456, "one source for the port");
    const again = await planInstall(
      optionsFor(world, { collector: { ...collector, port: 24000 } }),
    );
    assert.ok(
      again.warnings.some((w) => /written for 127\.0\.0\.1:24000.*says 127\.0\.0\.1:23456/.test(w)),
      again.warnings.join("\n"),
    );
    const same = await planInstall(optionsFor(world, { collector }));
    assert.ok(!same.warnings.some((w) => /written for/.test(w)));
  });
});

Deno.test("knownLocation: a user's file only where its agent puts it (CODEX_HOME's too), a project's file at its place in any folder", () => {
  const paths = installPaths("/home/ann", "/work/app", { codexHome: "/srv/ann-codex" });
  for (const kind of TARGET_KINDS) {
    assert.ok(knownLocation(kind, "/nowhere/x.json", paths) === false);
  }
  assert.ok(knownLocation("codex-hooks", "/srv/ann-codex/hooks.json", paths));
  assert.ok(!knownLocation("codex-hooks", "/home/ann/.codex/hooks.json", paths), "not the default");
  assert.ok(knownLocation("codex-hooks-project", "/elsewhere/api/.codex/hooks.json", paths));
  assert.ok(knownLocation("claude-settings-user", "/home/ann/.claude/settings.json", paths));
  assert.ok(!knownLocation("claude-settings-user", "/home/bob/.claude/settings.json", paths));
  assert.ok(knownLocation("claude-settings-project", "/any/repo/.claude/settings.json", paths));
  assert.ok(
    !knownLocation("claude-settings-project", "/any/repo/../etc/.claude/settings.json", paths),
  );
});

Deno.test("knownDir: every folder of every kind's files is one install may make, at home, in a project, under CODEX_HOME and COPILOT_HOME", () => {
  const [home, project] = ["/home/ann", "/work/app"];
  const [codexHome, copilotHome] = ["/srv/ann-codex", "/srv/ann-copilot"];
  const paths = installPaths(home, project, { codexHome, copilotHome });
  // The agents' kinds and the hand-kept list both: a kind missing from either is still checked.
  const kinds = new Set([...TARGET_KINDS, ...everyFile(paths).map(([kind]) => kind)]);
  const checked = new Set<string>();
  for (const kind of kinds) {
    for (const file of filesOf(kind, paths)) {
      // The folders between the file and where it sits: the agent's own home is one of them (a
      // COPILOT_HOME that does not exist yet is made), the user's home and the project are not.
      const agentHome = [codexHome, copilotHome].find((dir) => file.startsWith(`${dir}/`));
      const stop = agentHome === undefined
        ? (file.startsWith(`${project}/`) ? project : home)
        : dirname(agentHome);
      for (let dir = dirname(file); dir !== stop; dir = dirname(dir)) {
        assert.ok(knownDir(dir, paths), `${dir}, the folder of a ${kind} file ${file}`);
        checked.add(dir);
        // In any project, and in any home, alike.
        const elsewhere = dir.replace(/^\/(home\/ann|work\/app)\//, "/elsewhere/repo/");
        if (elsewhere !== dir) assert.ok(knownDir(elsewhere, paths), elsewhere);
      }
    }
  }
  assert.deepEqual([...checked].sort(), [
    "/home/ann/.claude",
    "/home/ann/.gemini",
    "/home/ann/.kiro",
    "/home/ann/.kiro/agents",
    "/srv/ann-codex",
    "/srv/ann-copilot",
    "/srv/ann-copilot/hooks",
    "/work/app/.claude",
    "/work/app/.codex",
    "/work/app/.kiro",
    "/work/app/.kiro/hooks",
    "/work/app/.kiro/settings",
  ]);
  for (
    const dir of [home, project, "/", "/srv", "/home/ann/.ssh", "/home/ann/.kiro/../.ssh", ".kiro"]
  ) {
    assert.ok(!knownDir(dir, paths), dir);
  }
});
