// Claude Code's headers helper as a real process with its launcher's permissions: the token goes
// only to a collector that proves itself, and the project is the agent's folder.
import assert from "node:assert/strict";
import { AGENT_CWD_ARG, mcpHeadersCommand } from "@kiro-learn/core/launch";
import { MCP_NAMESPACE_HEADER, ROUTES } from "@kiro-learn/core/api/wire";
import { resolveProject } from "@kiro-learn/core/project";
import { loadSettings } from "@kiro-learn/core/settings";
import { freePort, startTestDaemon } from "@kiro-learn/collector/testing";
import { agentCwdArg } from "./mcp_headers.ts";
import { makeProject, TEST_ACTOR } from "./testing.ts";

async function runHelper(
  env: Record<string, string>,
  agentCwd: string,
): Promise<{ headers: Record<string, string>; stderr: string; code: number }> {
  const settings = loadSettings({ env });
  const [command, ...args] = mcpHeadersCommand(settings);
  // Claude Code runs the helper in its config folder; the launcher hands over the agent's.
  const out = await new Deno.Command(command, {
    args: [...args, `${AGENT_CWD_ARG}${agentCwd}`],
    cwd: settings.dataDir,
    env: { ...env, USER: TEST_ACTOR, HOME: Deno.env.get("HOME") ?? "/root" },
    clearEnv: true,
  }).output();
  const decoder = new TextDecoder();
  return {
    headers: JSON.parse(decoder.decode(out.stdout)),
    stderr: decoder.decode(out.stderr),
    code: out.code,
  };
}

Deno.test("agentCwdArg reads the launcher's argument; empty means none found", () => {
  assert.equal(agentCwdArg([`${AGENT_CWD_ARG}/srv/app`]), "/srv/app");
  assert.equal(agentCwdArg([AGENT_CWD_ARG]), null);
  assert.equal(agentCwdArg([]), null);
});

Deno.test("the helper gives our collector the token and the agent's project; the MCP route takes them", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const run = await runHelper(daemon.env, `${project}/src`);
  assert.equal(run.code, 0, run.stderr);
  const namespace = resolveProject(project, { actor: TEST_ACTOR }).namespace;
  assert.deepEqual(run.headers, {
    [MCP_NAMESPACE_HEADER]: namespace,
    Authorization: `Bearer ${daemon.token}`,
  });
  // What it printed is what the route needs.
  const res = await fetch(daemon.url + ROUTES.mcp, {
    method: "POST",
    headers: {
      ...run.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).result.tools.length, 6);
  await Deno.remove(project, { recursive: true });
});

Deno.test("a process on the port that cannot prove it is our collector gets no token", async () => {
  const dataDir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-data-" }));
  const port = freePort();
  await Deno.writeTextFile(
    `${dataDir}/settings.json`,
    JSON.stringify({ collector: { host: "127.0.0.1", port } }),
  );
  await Deno.writeTextFile(`${dataDir}/token`, "our-secret-token-0123456789abcdef");
  const seen: string[] = [];
  // Another user's collector: it answers the hello, with a proof made with its own token.
  const impostor = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (req) => {
    seen.push(req.headers.get("authorization") ?? "");
    return Response.json({ proof: "0".repeat(64) });
  });
  try {
    const project = await makeProject();
    const run = await runHelper({ KIRO_LEARN_HOME: dataDir }, project);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(Object.keys(run.headers), [MCP_NAMESPACE_HEADER]);
    assert.deepEqual(seen, [""], "the impostor got the hello, and no token");
    await Deno.remove(project, { recursive: true });
  } finally {
    await impostor.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("with the collector down and no starter, the helper still prints a JSON object and exits 0", async () => {
  const dataDir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-data-" }));
  await Deno.writeTextFile(
    `${dataDir}/settings.json`,
    JSON.stringify({ collector: { host: "127.0.0.1", port: freePort() } }),
  );
  await Deno.writeTextFile(`${dataDir}/token`, "our-secret-token-0123456789abcdef");
  try {
    const run = await runHelper({ KIRO_LEARN_HOME: dataDir }, dataDir);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.headers.Authorization, undefined);
    assert.equal(run.stderr, "");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
