// The stdio MCP relay as installed, for real: the `sh` launcher `kiro-learn install` writes for
// Gemini CLI and Copilot CLI, real curl, a real collector daemon and its Unix socket, driven by the
// MCP SDK's own client over stdio. Over the socket no Deno process runs (the launcher names a Deno
// that does not exist); with the socket gone it execs the Deno stdio server.
import assert from "node:assert/strict";
// @ts-types: the SDK's wildcard export hides its declarations from Deno (see mcp/tools.ts).
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { resolveProject } from "@kiro-learn/core/project";
import { z } from "zod";
import { TEST_ACTOR } from "../../../shims/testing.ts";
import { gitRepository, installLaunchers, mcpBaseEnv, startTestDaemon } from "./mod.ts";

/** Connects the SDK client to the launcher, run in `cwd` as an agent runs a stdio server. */
async function connect(
  launcher: string,
  options: { cwd: string; home: string; env: Record<string, string> },
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: "sh",
    args: ["-c", `exec '${launcher}'`],
    env: { ...mcpBaseEnv(), USER: TEST_ACTOR, HOME: options.home, ...options.env },
    cwd: options.cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "kiro-learn-relay-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The titles of the memories the collector holds for `namespace`. */
async function titles(
  daemon: { fetch(path: string): Promise<Response> },
  namespace: string,
): Promise<string[]> {
  const res = await daemon.fetch(`/v1/memories?namespace=${encodeURIComponent(namespace)}`);
  assert.equal(res.status, 200);
  const body = await res.json();
  return (body.records ?? body.items ?? body).map((r: { title: string }) => r.title);
}

Deno.test("the stdio MCP relay: the collector's MCP route over its socket, else the Deno server", async (t) => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const shop = await gitRepository(home, "shop");
  const blog = await gitRepository(home, "blog");
  await Deno.mkdir(`${shop}/src`);
  const env = { ...daemon.env };
  const shopNs = resolveProject(shop, { actor: TEST_ACTOR, home }).namespace;
  const blogNs = resolveProject(blog, { actor: TEST_ACTOR, home }).namespace;
  assert.match(shopNs, /\/project\/git-/, "the remote decides the project id");
  assert.notEqual(shopNs, blogNs);
  try {
    await t.step(
      "over the socket: initialize, tools, a save in the right project, errors",
      async () => {
        // A launcher whose Deno server cannot start: whatever answers came over the socket.
        const relay = await installLaunchers(daemon, {
          home,
          denoPath: "/nonexistent/deno",
          launcher: "mcp-relay",
        });
        const { client, stderr } = await connect(relay, { cwd: `${shop}/src`, home, env });
        try {
          assert.equal(client.getServerVersion()?.name, "kiro-learn-memory");
          const tools = (await client.listTools()).tools.map((tool) => tool.name);
          assert.ok(tools.includes("save_observation"), tools.join(", "));
          assert.equal(tools.length, 6);
          const saved = await client.callTool({
            name: "save_observation",
            arguments: {
              title: "relay saves land in the shop",
              summary: "saved through the sh relay over the collector's socket",
              observation_type: "discovery",
            },
          });
          assert.notEqual(saved.isError, true, JSON.stringify(saved));
          assert.deepEqual(await titles(daemon, shopNs), ["relay saves land in the shop"]);
          assert.deepEqual(await titles(daemon, blogNs), []);
          // The route's own errors come back as they are: a tool's invalid arguments, an
          // unknown method.
          const bad = await client.callTool({ name: "save_observation", arguments: { title: "" } });
          assert.equal(bad.isError, true);
          await assert.rejects(
            client.request({ method: "no/such-method", params: {} }, z.any()),
            /-32601|not found/i,
          );
          // A request the collector does not answer gets an error under its own id: the agent
          // never waits for it. The tool list, alike for every session, is kept by the relay.
          const socket = daemon.settings.paths.socket;
          await Deno.rename(socket, `${socket}.away`);
          try {
            await assert.rejects(
              client.request({ method: "ping", params: {} }, z.any()),
              /-32603.*collector did not answer/,
            );
            assert.equal((await client.listTools()).tools.length, 6, "from the relay's cache");
          } finally {
            await Deno.rename(`${socket}.away`, socket);
          }
          assert.deepEqual(await client.request({ method: "ping", params: {} }, z.any()), {});
          assert.equal(stderr(), "");
        } finally {
          await client.close();
        }
      },
    );

    await t.step(
      "a later session: initialize, the tool list and the project from the cache, no request",
      async () => {
        const relay = await installLaunchers(daemon, {
          home,
          denoPath: "/nonexistent/deno",
          launcher: "mcp-relay",
        });
        const { paths } = daemon.settings;
        // Kept for this collector process only: its pid and start time head the file.
        const [key] = (await Deno.readTextFile(paths.mcpRelayCache)).split("\n");
        const pid = (await Deno.readTextFile(paths.pid)).trim();
        assert.match(key, new RegExp(`^${pid}-[0-9]+$`));
        assert.equal((await Deno.stat(paths.mcpRelayCache)).mode! & 0o777, 0o600);
        // A token the collector refuses: only what the relay kept can answer.
        const token = await Deno.readTextFile(paths.hookAuth);
        await Deno.writeTextFile(paths.hookAuth, "Authorization: Bearer not-the-token\n");
        try {
          const { client } = await connect(relay, { cwd: shop, home, env });
          try {
            assert.equal(client.getServerVersion()?.name, "kiro-learn-memory");
            assert.equal((await client.listTools()).tools.length, 6);
            await assert.rejects(
              client.callTool({ name: "search_memory", arguments: { query: "relay" } }),
              /-32603.*HTTP 401/,
            );
          } finally {
            await client.close();
          }
        } finally {
          await Deno.writeTextFile(paths.hookAuth, token);
        }
        // Kept under another collector process (a restart, an upgrade): asked again.
        const stale = (await Deno.readTextFile(paths.mcpRelayCache)).split("\n");
        stale[0] = "1-1";
        stale[4] = stale[4].replace("save_observation", "stale_tool");
        await Deno.writeTextFile(paths.mcpRelayCache, stale.join("\n"));
        const { client } = await connect(relay, { cwd: shop, home, env });
        try {
          const tools = (await client.listTools()).tools.map((tool) => tool.name);
          assert.ok(tools.includes("save_observation") && !tools.includes("stale_tool"));
        } finally {
          await client.close();
        }
        assert.equal((await Deno.readTextFile(paths.mcpRelayCache)).split("\n")[0], key);
      },
    );

    await t.step("in another project, its own namespace", async () => {
      const relay = await installLaunchers(daemon, {
        home,
        denoPath: "/nonexistent/deno",
        launcher: "mcp-relay",
      });
      const { client } = await connect(relay, { cwd: blog, home, env });
      try {
        const saved = await client.callTool({
          name: "save_observation",
          arguments: { title: "blog note", summary: "in the blog", observation_type: "decision" },
        });
        assert.notEqual(saved.isError, true, JSON.stringify(saved));
        assert.deepEqual(await titles(daemon, blogNs), ["blog note"]);
      } finally {
        await client.close();
      }
    });

    await t.step("no socket: it execs the Deno stdio server", async () => {
      const socket = daemon.settings.paths.socket;
      await Deno.rename(socket, `${socket}.away`);
      try {
        // The real Deno: the server answers; the broken one proves the socket is not used.
        const broken = await installLaunchers(daemon, {
          home,
          denoPath: "/nonexistent/deno",
          launcher: "mcp-relay",
        });
        await assert.rejects(connect(broken, { cwd: shop, home, env }));
        const relay = await installLaunchers(daemon, { home, launcher: "mcp-relay" });
        const { client } = await connect(relay, { cwd: shop, home, env });
        try {
          const tools = (await client.listTools()).tools.map((tool) => tool.name);
          assert.ok(tools.includes("save_observation"));
          const saved = await client.callTool({
            name: "save_observation",
            arguments: {
              title: "from the Deno server",
              summary: "fallback",
              observation_type: "discovery",
            },
          });
          assert.notEqual(saved.isError, true, JSON.stringify(saved));
          assert.ok((await titles(daemon, shopNs)).includes("from the Deno server"));
        } finally {
          await client.close();
        }
      } finally {
        await Deno.rename(`${socket}.away`, socket);
      }
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
