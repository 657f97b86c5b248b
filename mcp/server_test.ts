import assert from "node:assert/strict";
import { join } from "node:path";
import { CollectorError } from "@kiro-learn/core/api";
import { resolveProject } from "@kiro-learn/core/project";
import { runGit } from "@kiro-learn/core/testing";
import { projectDir, startupContext } from "./server.ts";

Deno.test("projectDir: KIRO_LEARN_PROJECT_DIR, then CLAUDE_PROJECT_DIR, then the cwd", () => {
  const cwd = "/work/here";
  assert.equal(projectDir({ env: {}, cwd }), cwd);
  assert.equal(projectDir({ env: { CLAUDE_PROJECT_DIR: "/c" }, cwd }), "/c");
  assert.equal(
    projectDir({ env: { CLAUDE_PROJECT_DIR: "/c", KIRO_LEARN_PROJECT_DIR: "/k" }, cwd }),
    "/k",
  );
  assert.equal(
    projectDir({ env: { KIRO_LEARN_PROJECT_DIR: "  ", CLAUDE_PROJECT_DIR: "" }, cwd }),
    cwd,
  );
});

Deno.test("startupContext resolves the namespace and the collector from settings", async () => {
  const home = await Deno.makeTempDir();
  const project = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(project, ".git"));
    await Deno.writeTextFile(
      join(home, "settings.json"),
      JSON.stringify({ collector: { port: 23456 } }),
    );
    const context = startupContext({
      env: { KIRO_LEARN_HOME: home, USER: "alice", HOME: "/nonexistent-home" },
      cwd: project,
    });
    assert.match(context.namespace, /^\/actor\/alice\/project\/[0-9a-f]{64}\/$/);
    assert.equal(context.client.url, "http://127.0.0.1:23456");
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("startupContext takes the repository's remote, like the hooks, from any folder", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir());
  try {
    const project = join(home, "code", "shop");
    await Deno.mkdir(join(project, "src"), { recursive: true });
    await runGit(project, "init", "-q");
    await runGit(project, "remote", "add", "origin", "git@github.com:acme/shop.git");
    const env = { KIRO_LEARN_HOME: join(home, ".kiro-learn"), USER: "alice", HOME: home };
    // Claude Code names the project; Kiro starts the server in a subfolder: one namespace.
    const fromEnv = startupContext({ env: { ...env, CLAUDE_PROJECT_DIR: project }, cwd: home });
    const fromCwd = startupContext({ env, cwd: join(project, "src") });
    const hooks = resolveProject(join(project, "src"), { actor: "alice", home });
    assert.equal(hooks.id_source, "git-remote");
    assert.equal(fromEnv.namespace, hooks.namespace);
    assert.equal(fromCwd.namespace, hooks.namespace);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a broken settings.json still starts; every call explains the problem", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(home, "settings.json"), '{"collector": {"port": 70000}}');
    const context = startupContext({ env: { KIRO_LEARN_HOME: home }, cwd: home });
    await assert.rejects(
      () => context.client.search(context.namespace, "x", { limit: 1 }),
      (error: Error) => {
        assert.ok(error instanceof CollectorError);
        assert.match(error.message, /could not start/);
        assert.match(error.message, /collector\.port/);
        return true;
      },
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
