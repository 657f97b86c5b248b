// Claude Code's MCP headers helper as installed, for real: the `sh` launcher `kiro-learn install`
// writes, real curl, a real collector daemon and its Unix socket, run the way Claude Code runs it
// (in its config folder, below the agent's process). The fast path prints, with no Deno, exactly
// what the Deno helper prints; every way it can fail falls back to that helper, and the token only
// ever comes from the socket or from a collector that proved itself.
import assert from "node:assert/strict";
import { MCP_NAMESPACE_HEADER, ROUTES } from "@kiro-learn/core/api/wire";
import { resolveProject } from "@kiro-learn/core/project";
import { TEST_ACTOR } from "../../../shims/testing.ts";
import { gitProject, installLaunchers, projectLayouts, startTestDaemon } from "./mod.ts";

/**
 * Runs the launcher as Claude Code does: the agent works in `agentCwd`, and runs the helper in
 * its config folder through `sh -c`. Returns what the helper printed.
 */
async function runAsClaudeCode(
  launcher: string,
  options: { agentCwd: string; home: string; env: Record<string, string> },
): Promise<string> {
  const config = `${options.home}/.claude`;
  await Deno.mkdir(config, { recursive: true });
  const out = await new Deno.Command("/bin/sh", {
    args: ["-c", `(cd '${config}' && sh -c "exec '${launcher}'")`],
    cwd: options.agentCwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      USER: TEST_ACTOR,
      HOME: options.home,
      ...options.env,
    },
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(stderr, "");
  return new TextDecoder().decode(out.stdout);
}

Deno.test("the MCP headers launcher's fast path and its fallbacks", async (t) => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const project = await gitProject(home, "shop");
  const env = { ...daemon.env };
  const namespace = resolveProject(project, { actor: TEST_ACTOR, home }).namespace;
  assert.match(namespace, /\/project\/git-/, "the remote decides the project id");
  const expected = JSON.stringify({
    [MCP_NAMESPACE_HEADER]: namespace,
    Authorization: `Bearer ${daemon.token}`,
  }) + "\n";

  try {
    await t.step("fast path: no Deno runs, and it prints what the Deno helper prints", async () => {
      // A launcher whose helper cannot start: whatever it prints came over the socket.
      const noDeno = await installLaunchers(daemon, {
        home,
        denoPath: "/nonexistent/deno",
        launcher: "mcp-headers",
      });
      const fast = await runAsClaudeCode(noDeno, { agentCwd: `${project}/src`, home, env });
      assert.equal(fast, expected);
      // The Deno helper, the socket out of the way: the same bytes.
      const launcher = await installLaunchers(daemon, { home, launcher: "mcp-headers" });
      const socket = daemon.settings.paths.socket;
      await Deno.rename(socket, `${socket}.away`);
      try {
        const helper = await runAsClaudeCode(launcher, { agentCwd: `${project}/src`, home, env });
        assert.equal(helper, fast);
      } finally {
        await Deno.rename(`${socket}.away`, socket);
      }
      // What it printed is what the MCP route needs.
      const res = await fetch(daemon.url + ROUTES.mcp, {
        method: "POST",
        headers: {
          ...JSON.parse(fast),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).result.tools.length, 6);
    });

    await t.step(
      "while the same collector lives its answer is reused; a new collector, a newer git config, an unanswered hook or a stopped collector ask again",
      async () => {
        const noDeno = await installLaunchers(daemon, {
          home,
          denoPath: "/nonexistent/deno",
          launcher: "mcp-headers",
        });
        const cache = daemon.settings.paths.mcpHeadersCache;
        const run = () => runAsClaudeCode(noDeno, { agentCwd: `${project}/src`, home, env });
        assert.equal(await run(), expected);
        assert.equal((await Deno.stat(cache)).mode! & 0o777, 0o600, "it holds the token");
        // A marked copy of the answer: printed only when the cache, not curl, answered.
        const marked = JSON.stringify({ [MCP_NAMESPACE_HEADER]: namespace, Marked: "cached" });
        const mark = async () => {
          const [key] = (await Deno.readTextFile(cache)).split("\n");
          await Deno.writeTextFile(cache, `${key}\n${marked}\n`);
        };
        await mark();
        assert.equal(await run(), marked + "\n", "reused while the same collector lives");
        // A hook found the collector unanswering: ask it.
        await Deno.writeTextFile(daemon.settings.paths.unanswered, "");
        try {
          assert.equal(await run(), expected);
        } finally {
          await Deno.remove(daemon.settings.paths.unanswered);
        }
        // The repository's config changed after the answer (a new remote): ask again.
        await mark();
        const past = new Date(Date.now() - 60_000);
        await Deno.utime(cache, past, past);
        assert.equal(await run(), expected);
        // A stopped collector is never trusted from the cache: the Deno helper's hello times
        // out, and it prints the project alone.
        await mark();
        const helper = await installLaunchers(daemon, { home, launcher: "mcp-headers" });
        Deno.kill(daemon.pid(), "SIGSTOP");
        let stopped: string;
        try {
          stopped = await runAsClaudeCode(helper, { agentCwd: `${project}/src`, home, env });
        } finally {
          Deno.kill(daemon.pid(), "SIGCONT");
        }
        assert.deepEqual(JSON.parse(stopped), { [MCP_NAMESPACE_HEADER]: namespace });
        // Another collector process (same data dir, same token): the cache is not trusted.
        await mark();
        await daemon.kill();
        await daemon.restart();
        assert.equal(await run(), expected);
        assert.equal(await run(), expected, "the new collector's own answer is cached");
      },
    );

    await t.step("a project no .git folder decides: the Deno helper resolves it", async () => {
      const notes = `${home}/notes/2026`;
      await Deno.mkdir(notes, { recursive: true });
      await Deno.writeTextFile(`${home}/notes/deno.json`, "{}\n");
      // A dotfiles repository at $HOME: its .git never decides a project inside $HOME.
      await gitProject(home, ".");
      const launcher = await installLaunchers(daemon, { home, launcher: "mcp-headers" });
      const printed = await runAsClaudeCode(launcher, { agentCwd: notes, home, env });
      assert.deepEqual(JSON.parse(printed), {
        [MCP_NAMESPACE_HEADER]: resolveProject(notes, { actor: TEST_ACTOR, home }).namespace,
        Authorization: `Bearer ${daemon.token}`,
      });
      // And with no Deno to fall back on, the fast path did not answer for it.
      const noDeno = await installLaunchers(daemon, {
        home,
        denoPath: "/nonexistent/deno",
        launcher: "mcp-headers",
      });
      const out = await new Deno.Command("/bin/sh", {
        args: ["-c", `(cd '${home}' && sh -c "exec '${noDeno}'")`],
        cwd: notes,
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          USER: TEST_ACTOR,
          HOME: home,
          ...env,
        },
      }).output();
      assert.equal(new TextDecoder().decode(out.stdout), "");
    });

    await t.step("every layout gets the namespace resolveProject gives", async () => {
      // Nested repository, a symlinked path, a git worktree (.git file), $HOME itself holding
      // .git, a .git above $HOME, a folder outside $HOME: the socket where a .git folder decides,
      // the Deno helper elsewhere, and the same answer either way.
      const launcher = await installLaunchers(daemon, { home, launcher: "mcp-headers" });
      const layouts = await projectLayouts(home, project);
      const { cases } = layouts;
      try {
        for (const [agentCwd, caseHome] of cases) {
          const printed = await runAsClaudeCode(launcher, { agentCwd, home: caseHome, env });
          // The agent's folder as /proc gives it: the physical one.
          const physical = await Deno.realPath(agentCwd);
          assert.deepEqual(JSON.parse(printed), {
            [MCP_NAMESPACE_HEADER]: resolveProject(physical, { actor: TEST_ACTOR, home: caseHome })
              .namespace,
            Authorization: `Bearer ${daemon.token}`,
          }, agentCwd);
        }
      } finally {
        await layouts.remove();
      }
    });

    await t.step("the collector killed, an impostor on its port: no token printed", async () => {
      const launcher = await installLaunchers(daemon, { home, launcher: "mcp-headers" });
      // Killed, not stopped: its socket file (and header file) stay behind, nothing listens.
      await daemon.kill();
      assert.equal((await Deno.stat(daemon.settings.paths.socket)).isSocket, true);
      const seen: string[] = [];
      const impostor = Deno.serve(
        { hostname: "127.0.0.1", port: daemon.port, onListen() {} },
        (req) => {
          seen.push(`${new URL(req.url).pathname} ${req.headers.get("authorization") ?? ""}`);
          return Response.json({ proof: "0".repeat(64) });
        },
      );
      try {
        const printed = await runAsClaudeCode(launcher, { agentCwd: `${project}/src`, home, env });
        assert.deepEqual(JSON.parse(printed), { [MCP_NAMESPACE_HEADER]: namespace });
        assert.ok(!printed.includes(daemon.token));
        assert.deepEqual(seen, [`${ROUTES.hello} `], "the impostor got the hello, and no token");
      } finally {
        await impostor.shutdown();
      }
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
