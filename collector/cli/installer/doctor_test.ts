import assert from "node:assert/strict";
import { join } from "node:path";
import { resolveProject } from "@kiro-learn/core/project";
import { spoolEvent } from "@kiro-learn/core/spool";
import { makeEvent, runGit } from "@kiro-learn/core/testing";
import { collectorMcpUrl } from "@kiro-learn/core/api";
import { DEFAULTS, SETTINGS_FILE } from "@kiro-learn/core/settings";
import { doctor, type DoctorOptions, type DoctorReport, formatCheck } from "./doctor.ts";
import { install } from "./install.ts";
import type { InstallCommands } from "./plan.ts";
import { hookCommand } from "./shell.ts";
import { optionsFor, withWorld, type World, writeFiles } from "./_test_support.ts";

const TROUBLESHOOTING = new URL("../../../docs/troubleshooting.md", import.meta.url);

// docs/troubleshooting.md answers "doctor says X: what now?" with a section per check: each
// check doctor printed is named in one of its headings (`## a, b, c`).
function assertDocumented(report: DoctorReport): void {
  const documented = Deno.readTextFileSync(TROUBLESHOOTING).split("\n")
    .filter((line) => line.startsWith("## ")).flatMap((line) => line.slice(3).split(", "));
  const missing = report.checks.map((c) => c.name).filter((name) => !documented.includes(name));
  assert.deepEqual(missing, [], "doctor checks without a section in docs/troubleshooting.md");
}

/** Real files for the shims, the MCP server and a fake kiro-cli on a private PATH. */
async function realCommands(world: World): Promise<{ commands: InstallCommands; path: string }> {
  const bin = join(world.root, "opt", "bin");
  const shims = join(world.root, "opt", "shims");
  await Deno.mkdir(bin, { recursive: true });
  await Deno.mkdir(shims, { recursive: true });
  for (const name of ["deno", "kiro-cli"]) {
    await Deno.writeTextFile(join(bin, name), "#!/bin/sh\nexit 0\n");
    await Deno.chmod(join(bin, name), 0o755);
  }
  for (
    const name of [
      "kiro-cli.ts",
      "kiro-ide.ts",
      "claude-code.ts",
      "codex.ts",
      "gemini-cli.ts",
      "copilot-cli.ts",
      "mcp.ts",
    ]
  ) {
    await Deno.writeTextFile(join(shims, name), "");
  }
  return {
    commands: {
      shim: (
        surface,
        extra = [],
      ) => [join(bin, "deno"), "run", join(shims, `${surface}.ts`), ...extra],
      mcp: () => [join(bin, "deno"), "run", join(shims, "mcp.ts")],
    },
    path: bin,
  };
}

function run(world: World, extra: Partial<DoctorOptions> = {}): Promise<DoctorReport> {
  return doctor({
    home: world.home,
    projectDir: world.project,
    dataDir: world.dataDir,
    env: { PATH: "" },
    probeHealth: () => Promise.resolve(null),
    print: () => {},
    ...extra,
  });
}

function statusOf(report: DoctorReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
}

/** A healthy install: real commands, token, health answering. */
async function healthy(
  world: World,
): Promise<{ commands: InstallCommands; extra: Partial<DoctorOptions> }> {
  const { commands, path } = await realCommands(world);
  await install({ ...optionsFor(world, { commands }), print: () => {} });
  await Deno.writeTextFile(join(world.dataDir, "token"), "secret\n", { mode: 0o600 });
  await Deno.chmod(join(world.dataDir, "token"), 0o600);
  return {
    commands,
    extra: {
      env: { PATH: path },
      commands,
      probeHealth: () => Promise.resolve({ version: "9.9.9" }),
    },
  };
}

Deno.test("doctor on a fresh home reports every missing piece and exits 1", async () => {
  await withWorld(async (world) => {
    const lines: string[] = [];
    const report = await run(world, { print: (line) => lines.push(line) });
    assert.equal(report.exitCode, 1);
    assert.deepEqual(statusOf(report), {
      "data dir": "fail",
      "settings": "warn",
      "token": "warn",
      "collector": "fail",
      "hooks Kiro CLI": "fail",
      "hooks Kiro IDE": "fail",
      "hooks Claude Code": "fail",
      "hooks Codex CLI": "fail",
      "hooks Gemini CLI": "fail",
      "hooks Copilot CLI": "fail",
      "mcp server": "warn",
      "extractor": "warn",
      "acp agent": "warn",
      "spool": "ok",
    });
    // One line per check plus the summary; every problem carries a fix.
    assert.equal(lines.length, report.checks.length + 1);
    for (const check of report.checks) {
      if (check.status !== "ok") assert.ok(check.fix, check.name);
    }
    assert.match(lines[0], /^fail {2}data dir: .* does not exist \(fix: kiro-learn install\)$/);
    assert.match(report.summary, /1 ok, 5 warning\(s\), 8 failure\(s\)/);
    assertDocumented(report);
  });
});

Deno.test("doctor after a complete install is all ok and exits 0", async () => {
  await withWorld(async (world) => {
    const { extra } = await healthy(world);
    const report = await run(world, extra);
    assert.deepEqual(
      report.checks.filter((c) => c.status !== "ok").map(formatCheck),
      [],
    );
    assert.equal(report.exitCode, 0);
    assert.match(report.checks.find((c) => c.name === "collector")!.message, /9\.9\.9/);
    assertDocumented(report);
  });
});

Deno.test("doctor fails hooks that point at files that are gone", async () => {
  await withWorld(async (world) => {
    const { extra } = await healthy(world);
    await Deno.remove(join(world.root, "opt", "shims", "claude-code.ts"));
    const report = await run(world, extra);
    const claude = report.checks.find((c) => c.name === "hooks Claude Code")!;
    assert.equal(claude.status, "fail");
    assert.match(claude.message, /claude-code\.ts/);
    assert.equal(statusOf(report)["hooks Kiro CLI"], "ok");
    assert.equal(report.exitCode, 1);
  });
});

Deno.test("doctor warns of a hook an older version installed, without failing", async () => {
  await withWorld(async (world) => {
    const { extra } = await healthy(world);
    const settingsPath = join(world.home, ".claude", "settings.json");
    const claude = JSON.parse(await Deno.readTextFile(settingsPath));
    // An older version's SessionEnd and tool hooks: the same command as its Stop hook.
    claude.hooks.SessionEnd = claude.hooks.Stop;
    claude.hooks.PostToolUse = [{ matcher: "*", hooks: claude.hooks.Stop[0].hooks }];
    await Deno.writeTextFile(settingsPath, JSON.stringify(claude));
    const report = await run(world, extra);
    const check = report.checks.find((c) => c.name === "hooks Claude Code")!;
    assert.equal(check.status, "warn", formatCheck(check));
    assert.match(
      check.message,
      /also for (SessionEnd, PostToolUse|PostToolUse, SessionEnd), which this version no longer hooks/,
    );
    assert.match(check.fix!, /kiro-learn install/);
    assert.equal(report.exitCode, 0, "a leftover hook still works: a warning, not a failure");
  });
});

Deno.test("doctor warns when both Kiro CLI formats are installed for a kiro-cli that reads both", async () => {
  await withWorld(async (world) => {
    const { commands, extra } = await healthy(world);
    await writeFiles(world, {
      "home/.kiro/agents/kiro-learn.json": {
        name: "kiro-learn",
        hooks: { stop: [{ command: hookCommand(commands.shim("kiro-cli")) }] },
      },
    });
    const kiroCli = async (kiroCliVersion: string | null) =>
      (await run(world, { ...extra, kiroCliVersion })).checks
        .find((c) => c.name === "hooks Kiro CLI")!;
    const three = await kiroCli("kiro-cli 3.1.0");
    assert.equal(three.status, "warn");
    assert.match(three.message, /both formats/);
    // Kiro CLI 2.x reads only the agent (the hook file is Kiro IDE 1.x's): nothing twice.
    for (const version of ["kiro-cli 2.3.1", null]) {
      const check = await kiroCli(version);
      assert.equal(check.status, "ok", formatCheck(check));
    }
  });
});

Deno.test("doctor tells a Kiro CLI 2.x user to select the kiro-learn agent", async () => {
  await withWorld(async (world) => {
    const { commands, path } = await realCommands(world);
    await install({ ...optionsFor(world, { commands, kiroFormat: "v2" }), print: () => {} });
    const report = await run(world, { commands, env: { PATH: path } });
    const check = report.checks.find((c) => c.name === "hooks Kiro CLI")!;
    assert.equal(check.status, "ok", formatCheck(check));
    assert.match(check.message, /only in the `kiro-learn` agent/);
    assert.match(check.message, /`kiro-cli chat --agent kiro-learn`/);
    // The v3 hook file needs no agent: nothing is said.
    await install({ ...optionsFor(world, { commands, kiroFormat: "v3" }), print: () => {} });
    const v3 = (await run(world, { commands, env: { PATH: path } })).checks
      .find((c) => c.name === "hooks Kiro CLI")!;
    assert.doesNotMatch(v3.message, /--agent/);
  });
});

Deno.test("doctor flags partial hooks, loose modes, bad settings and a full spool", async () => {
  await withWorld(async (world) => {
    const { extra } = await healthy(world);
    const settingsPath = join(world.home, ".claude", "settings.json");
    const claude = JSON.parse(await Deno.readTextFile(settingsPath));
    delete claude.hooks.UserPromptSubmit;
    await Deno.writeTextFile(settingsPath, JSON.stringify(claude));
    await Deno.chmod(join(world.dataDir, "token"), 0o644);
    await Deno.chmod(world.dataDir, 0o755);
    await Deno.writeTextFile(
      join(world.dataDir, "settings.json"),
      JSON.stringify({ spool: { maxBytes: 1_048_576 } }),
    );
    // Real spooled events until the spool refuses one (it is then full, and says so).
    const big = () => makeEvent({ body: { type: "text", content: "x".repeat(300_000) } });
    const spoolDir = join(world.dataDir, "spool");
    while (spoolEvent(big(), { spoolDir, maxBytes: 1_048_576, warn: () => {} }).spooled);

    const report = await run(world, extra);
    const by = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    assert.equal(by["hooks Claude Code"].status, "warn");
    assert.match(by["hooks Claude Code"].message, /not for UserPromptSubmit/);
    assert.equal(by["token"].status, "fail");
    assert.match(by["token"].fix!, /chmod 600/);
    assert.equal(by["data dir"].status, "warn");
    assert.equal(by["spool"].status, "fail");
    assert.match(
      by["spool"].message,
      /^filling up \(3 event\(s\), 8\d\d\.\d KiB of 1\.0 MiB\); 1 event\(s\) dropped because it was full \(dropped\.log\)$/,
    );

    await Deno.writeTextFile(join(world.dataDir, "settings.json"), '{"collector": {"port": 0}}');
    const bad = await run(world, extra);
    assert.equal(statusOf(bad).settings, "fail");
    assert.match(bad.checks.find((c) => c.name === "settings")!.message, /collector\.port/);
  });
});

Deno.test("doctor fails an HTTP MCP registration left on an old port by a settings change", async () => {
  await withWorld(async (world) => {
    const { commands: base, path } = await realCommands(world);
    const helper = join(world.root, "opt", "bin", "mcp-headers");
    await Deno.writeTextFile(helper, "#!/bin/sh\nexit 0\n");
    await Deno.chmod(helper, 0o755);
    const commands: InstallCommands = {
      ...base,
      mcpHttp: () => ({
        url: collectorMcpUrl(DEFAULTS.collector.host, DEFAULTS.collector.port),
        headersHelper: `exec ${helper}`,
      }),
    };
    await install({ ...optionsFor(world, { commands }), print: () => {} });
    await Deno.writeTextFile(join(world.dataDir, "token"), "secret\n", { mode: 0o600 });
    const extra = {
      env: { PATH: path },
      commands,
      probeHealth: () => Promise.resolve({ version: "9.9.9" }),
    };
    const before = (await run(world, extra)).checks.find((c) => c.name === "mcp server")!;
    assert.equal(before.status, "ok", before.message);
    assert.match(before.message, /\(HTTP\)/);

    const moved = DEFAULTS.collector.port + 1;
    await Deno.writeTextFile(
      join(world.dataDir, SETTINGS_FILE),
      JSON.stringify({ collector: { port: moved } }),
    );
    const after = (await run(world, extra)).checks.find((c) => c.name === "mcp server")!;
    assert.equal(after.status, "fail");
    assert.ok(
      after.message.includes(
        `but the collector listens at ${collectorMcpUrl(DEFAULTS.collector.host, moved)}`,
      ),
      after.message,
    );
    assert.equal(after.fix, "kiro-learn install");
  });
});

Deno.test("doctor reports an unparsable config as a failure naming the file", async () => {
  await withWorld(async (world) => {
    const { extra } = await healthy(world);
    await Deno.writeTextFile(join(world.home, ".claude", "settings.json"), "{ broken");
    const check = (await run(world, extra)).checks.find((c) => c.name === "hooks Claude Code")!;
    assert.equal(check.status, "fail");
    assert.match(check.message, /\.claude\/settings\.json is not valid JSON/);
  });
});

Deno.test("doctor accepts the legacy IDE hook files as IDE capture", async () => {
  await withWorld(async (world) => {
    const { commands, path } = await realCommands(world);
    await install({
      ...optionsFor(world, { commands, kiroFormat: "v2", kiroIdeLegacy: true }),
      print: () => {},
    });
    const report = await run(world, { env: { PATH: path }, commands });
    assert.equal(statusOf(report)["hooks Kiro IDE"], "ok");
    assert.equal(statusOf(report)["hooks Kiro CLI"], "ok");
    assert.match(
      report.checks.find((c) => c.name === "hooks Kiro IDE")!.message,
      /kiro-learn-prompt\.kiro\.hook/,
    );
  });
});

Deno.test("doctor never writes anything", async () => {
  await withWorld(async (world) => {
    await run(world);
    assert.deepEqual([...Deno.readDirSync(world.home)].map((e) => e.name), ["code"]);
  });
});

Deno.test("doctor wants the LLM agent files when the ACP agent is kiro-cli", async () => {
  await withWorld(async (world) => {
    const { path } = await realCommands(world);
    const check = (await run(world, { env: { PATH: path } })).checks.find((c) =>
      c.name === "acp agent"
    )!;
    assert.equal(check.status, "warn");
    assert.match(
      check.message,
      /kiro-learn-compressor, kiro-learn-reconciler, kiro-learn-compactor missing from ~\/\.kiro\/agents/,
    );
  });
});

Deno.test("doctor names the extractor the collector uses, an absolute agent path included", async () => {
  await withWorld(async (world) => {
    const agent = join(world.root, "opt", "claude-code-acp");
    await Deno.mkdir(join(world.root, "opt"), { recursive: true });
    await Deno.writeTextFile(agent, "#!/bin/sh\nexit 0\n");
    await Deno.chmod(agent, 0o755);
    const extractor = async (extraction: Record<string, unknown>) => {
      await Deno.mkdir(world.dataDir, { recursive: true });
      await Deno.writeTextFile(
        join(world.dataDir, "settings.json"),
        JSON.stringify({ extraction }),
      );
      const report = await run(world);
      const check = report.checks.find((c) => c.name === "extractor")!;
      const acp = report.checks.find((c) => c.name === "acp agent")!;
      return { status: check.status, message: check.message, acp: acp.message };
    };
    // An absolute path, with auto and with acp: the LLM is in use (PATH is empty here).
    for (const strategy of ["auto", "acp"]) {
      const found = await extractor({ strategy, agentCommand: [agent] });
      assert.equal(found.status, "ok");
      assert.match(
        found.message,
        new RegExp(`^LLM over ACP: .*claude-code-acp \\(extraction\\.${strategy}\\)$`),
      );
      // The judge's and compactor's kiro-cli are missing, and said to be, without a word
      // about the heuristic extractor.
      assert.doesNotMatch(found.acp, /heuristic/);
      assert.match(found.acp, /reconciliation\.agentCommand/);
    }
    const missing = await extractor({ strategy: "acp", agentCommand: ["/nowhere/agent"] });
    assert.equal(missing.status, "fail");
    assert.match(missing.message, /every extraction run fails/);
    const auto = await extractor({ strategy: "auto", agentCommand: ["/nowhere/agent"] });
    assert.equal(auto.status, "warn");
    assert.match(auto.message, /^heuristic/);
    const heuristic = await extractor({ strategy: "heuristic", agentCommand: [agent] });
    assert.match(heuristic.message, /^heuristic/);
  });
});

Deno.test("doctor says where the project id comes from: the remote, or the path", async () => {
  await withWorld(async (world) => {
    const git = (...args: string[]) => runGit(world.project, ...args);
    const projectLine = async () => {
      const project = resolveProject(world.project, { home: world.home });
      const report = await run(world, { project });
      return report.checks.find((c) => c.name === "project")!;
    };
    await git("init", "-q");
    const byPath = await projectLine();
    assert.equal(byPath.status, "ok");
    assert.match(byPath.message, /from its path \(no git remote\)/);
    await git("remote", "add", "origin", "https://ci:tok3n@github.com/acme/shop.git");
    const byRemote = await projectLine();
    assert.match(
      byRemote.message,
      /, id git-[0-9a-f]{12}… from remote origin \(github\.com\/acme\/shop\)/,
    );
    assert.ok(!byRemote.message.includes("tok3n"));
    // Without an identity (older callers) there is no project line.
    assert.equal((await run(world)).checks.some((c) => c.name === "project"), false);
  });
});

Deno.test("doctor reads Codex's files in CODEX_HOME, and says when a project's Codex hooks wait for the project's trust", async () => {
  await withWorld(async (world) => {
    const { commands, extra } = await healthy(world);
    const codexHome = join(world.root, "codex-home");
    await Deno.mkdir(codexHome);
    await install({ ...optionsFor(world, { commands, codexHome }), print: () => {} });
    const env = { ...extra.env, CODEX_HOME: codexHome };
    const moved = await run(world, { ...extra, env });
    const trust = moved.checks.find((c) => c.name === "codex hook trust")!;
    assert.equal(trust.status, "ok", trust.message);
    assert.match(trust.message, /codex-home\/config\.toml/);
    assert.equal(statusOf(moved)["hooks Codex CLI"], "ok");

    await install({
      ...optionsFor(world, { commands, codexHome, scope: "project" }),
      print: () => {},
    });
    const waiting = await run(world, { ...extra, env });
    const project = waiting.checks.find((c) => c.name === "codex project hook trust")!;
    assert.equal(project.status, "warn");
    assert.match(project.message, /only in a project you trusted/);
    assertDocumented(waiting);
    await Deno.writeTextFile(
      join(codexHome, "config.toml"),
      `[projects.${JSON.stringify(world.project)}]\ntrust_level = "trusted"\n`,
      { append: true },
    );
    const trusted = await run(world, { ...extra, env });
    assert.equal(statusOf(trusted)["codex project hook trust"], "ok");
  });
});
