// The memory tools over MCP Streamable HTTP, served by the real collector and driven by the
// SDK's own client: the same tools as the stdio server, behind the collector's guards.
import assert from "node:assert/strict";
// @ts-types: the SDK's wildcard export hides its declarations from Deno (see mcp/tools.ts).
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MCP_NAMESPACE_HEADER, ROUTES } from "@kiro-learn/core/api";
import { TOOL_NAMES } from "@kiro-learn/mcp";
import { resolveProject } from "@kiro-learn/core/project";
import { gitRepository, startTestDaemon, type TestDaemon } from "../../../tooling/testing/mod.ts";
import { MODERN_PROTOCOL_VERSION } from "./mcp.ts";

const ALPHA = `/actor/tester/project/${"a".repeat(64)}/`;
const BETA = `/actor/tester/project/${"b".repeat(64)}/`;

type Text = { text: string; isError: boolean };

async function connect(
  daemon: TestDaemon,
  headers: Record<string, string>,
): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: "kiro-learn-test", version: "0" });
  const transport = new StreamableHTTPClientTransport(new URL(daemon.url + ROUTES.mcp), {
    requestInit: { headers },
  });
  await client.connect(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Text> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  return { text: content.map((c) => c.text).join("\n"), isError: result.isError === true };
}

async function rawPost(daemon: TestDaemon, host: string, body: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: daemon.port });
  const head = [
    `POST ${ROUTES.mcp} HTTP/1.1`,
    `Host: ${host}`,
    `Authorization: Bearer ${daemon.token}`,
    `${MCP_NAMESPACE_HEADER}: ${ALPHA}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${new TextEncoder().encode(body).length}`,
    "Connection: close",
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(`${head}\r\n\r\n${body}`));
  const text = await new Response(conn.readable).text();
  return text;
}

/** Claude Code's first request, as it sends it (its `_meta` names the client and its version). */
const DISCOVER = {
  jsonrpc: "2.0",
  id: "server-discover-probe-1",
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "claude-code", version: "2.1.332" },
      "io.modelcontextprotocol/clientCapabilities": { roots: { listChanged: true } },
    },
  },
};

/** A request as a 2026-07-28 client sends it: the version and method in headers too. */
function modernPost(
  daemon: TestDaemon,
  headers: Record<string, string>,
  body: { method: string; [key: string]: unknown },
): Promise<Response> {
  return fetch(daemon.url + ROUTES.mcp, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": body.method,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

function probe(daemon: TestDaemon, headers: Record<string, string>): Promise<Response> {
  return modernPost(daemon, headers, DISCOVER);
}

function auth(daemon: TestDaemon, namespace: string): Record<string, string> {
  return { authorization: `Bearer ${daemon.token}`, [MCP_NAMESPACE_HEADER]: namespace };
}

Deno.test("the collector serves the memory tools over MCP HTTP, per project", async () => {
  await using daemon = await startTestDaemon();
  await using alpha = await connect(daemon, auth(daemon, ALPHA));
  assert.equal(alpha.getServerVersion()?.name, "kiro-learn-memory");
  // Stateless: no session to announce a change on, and the list never changes anyway.
  assert.deepEqual(alpha.getServerCapabilities()?.tools, { listChanged: false });
  const tools = (await alpha.listTools()).tools.map((t) => t.name);
  assert.deepEqual(tools, [...TOOL_NAMES]);

  const saved = await call(alpha, "save_observation", {
    title: "Retry the flaky upload with backoff",
    summary: "Uploads to the bucket fail under load; retrying with backoff fixed it. " +
      "The key was AKIAIOSFODNN7EXAMPLE.",
    observation_type: "decision",
  });
  assert.equal(saved.isError, false, saved.text);
  const id = /mr_[0-9A-Z]{26}/.exec(saved.text)?.[0];
  assert.ok(id, saved.text);

  // Stored through the collector's own route: in alpha's namespace, scrubbed.
  const stored = await (await daemon.fetch(`/v1/memories/${id}`)).json();
  assert.equal(stored.record.namespace, ALPHA);
  assert.equal(stored.record.strategy, "mcp_observation");
  assert.doesNotMatch(stored.record.summary, /AKIAIOSFODNN7EXAMPLE/);

  const found = await call(alpha, "search_memory", { query: "flaky upload backoff" });
  assert.match(found.text, new RegExp(id));

  // Another project sees nothing of alpha's, and cannot forget it.
  await using beta = await connect(daemon, auth(daemon, BETA));
  const elsewhere = await call(beta, "search_memory", { query: "flaky upload backoff" });
  assert.doesNotMatch(elsewhere.text, new RegExp(id));
  const forget = await call(beta, "forget_memory", { id });
  assert.equal(forget.isError, true, forget.text);
  assert.equal((await daemon.fetch(`/v1/memories/${id}`)).status, 200);
});

Deno.test("the MCP route refuses a missing token, a foreign Host or Origin, and a bad project", async () => {
  await using daemon = await startTestDaemon();
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "probe", version: "0" },
    },
  });
  const post = (headers: Record<string, string>) =>
    fetch(daemon.url + ROUTES.mcp, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: initialize,
    });
  const cases: [string, Record<string, string>, number, RegExp][] = [
    ["no token", { [MCP_NAMESPACE_HEADER]: ALPHA }, 401, /unauthorized/],
    ["a wrong token", { ...auth(daemon, ALPHA), authorization: "Bearer nope" }, 401, /unauth/],
    ["a foreign Origin", { ...auth(daemon, ALPHA), origin: "http://evil.example" }, 403, /cross/],
    ["no project", { authorization: `Bearer ${daemon.token}` }, 400, /no project/],
    ["a path as project", auth(daemon, "/home/me/app"), 400, /invalid namespace/],
    ["a prefix of namespaces", auth(daemon, "/actor/tester/"), 400, /invalid namespace/],
  ];
  for (const [what, headers, status, error] of cases) {
    // The probe a 2026-07-28 client opens with is answered by the route itself: guarded alike.
    for (const res of [await post(headers), await probe(daemon, headers)]) {
      const text = await res.text();
      assert.equal(res.status, status, `${what}: ${res.status} ${text}`);
      assert.match(text, error, what);
    }
  }
  // fetch sets Host itself: a DNS-rebinding page's request is written by hand.
  for (const body of [initialize, JSON.stringify(DISCOVER)]) {
    const rebinding = await rawPost(daemon, `evil.example:${daemon.port}`, body);
    assert.match(rebinding, /^HTTP\/1.1 403[^]*forbidden host/);
  }

  // The same request, right: the refusals above came from what each case got wrong.
  const ok = await post(auth(daemon, ALPHA));
  assert.equal(ok.status, 200, await ok.clone().text());
  assert.equal((await ok.json()).result.serverInfo.name, "kiro-learn-memory");

  // Concurrent requests of one project each get a server of their own (servers are pooled).
  const lists = await Promise.all(Array.from({ length: 8 }, async (_, i) => {
    const res = await fetch(daemon.url + ROUTES.mcp, {
      method: "POST",
      headers: {
        ...auth(daemon, ALPHA),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/list", params: {} }),
    });
    return { status: res.status, body: await res.json() };
  }));
  for (const [i, list] of lists.entries()) {
    assert.equal(list.status, 200);
    assert.equal(list.body.id, i);
    assert.equal(list.body.result.tools.length, 6);
  }

  // Stateless: no server-initiated stream and no session to delete.
  for (const method of ["GET", "DELETE"]) {
    const res = await fetch(daemon.url + ROUTES.mcp, { method, headers: auth(daemon, ALPHA) });
    await res.body?.cancel();
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get("allow"), "POST");
  }
});

Deno.test("a 2026-07-28 client: server/discover is answered, then the tools work without initialize", async () => {
  await using daemon = await startTestDaemon();
  const res = await probe(daemon, auth(daemon, ALPHA));
  assert.equal(res.status, 200, await res.clone().text());
  const discovered = await res.json();
  assert.equal(discovered.id, DISCOVER.id);
  assert.deepEqual(discovered.result.supportedVersions, [MODERN_PROTOCOL_VERSION]);
  // What initialize tells a 2025 client (the SDK's, here), said the 2026 way.
  await using legacy = await connect(daemon, auth(daemon, ALPHA));
  assert.deepEqual(discovered.result.capabilities, legacy.getServerCapabilities());
  assert.equal(discovered.result.instructions, legacy.getInstructions());
  assert.deepEqual(
    discovered.result._meta["io.modelcontextprotocol/serverInfo"],
    legacy.getServerVersion(),
  );
  assert.deepEqual(discovered.result.capabilities, { tools: { listChanged: false } });

  const envelope = { _meta: DISCOVER.params._meta };
  const rpc = async (id: number, method: string, params: Record<string, unknown>) => {
    const res = await modernPost(daemon, auth(daemon, ALPHA), {
      jsonrpc: "2.0",
      id,
      method,
      params: { ...envelope, ...params },
    });
    const text = await res.text();
    assert.equal(res.status, 200, `${method}: ${text}`);
    const body = JSON.parse(text);
    assert.equal(body.id, id, text);
    assert.equal(body.error, undefined, text);
    return body.result;
  };
  const list = await rpc(1, "tools/list", {});
  assert.deepEqual(list.tools.map((t: { name: string }) => t.name), [...TOOL_NAMES]);
  // 2026-07-28 requires a list result to say how long it may be cached, and by whom.
  assert.equal(list.ttlMs, 0);
  assert.equal(list.cacheScope, "private");
  assert.equal(list.resultType, "complete");

  const saved = await rpc(2, "tools/call", {
    name: "save_observation",
    arguments: {
      title: "Pin the client's protocol revision in the e2e sandbox",
      summary: "The sandbox's Claude Code negotiates 2026-07-28 with the collector's MCP route.",
      observation_type: "decision",
    },
  });
  assert.notEqual(saved.isError, true, JSON.stringify(saved));
  assert.equal(saved.resultType, "complete");
  const id = /mr_[0-9A-Z]{26}/.exec(saved.content[0].text)?.[0];
  assert.ok(id, JSON.stringify(saved));
  const found = await rpc(3, "tools/call", {
    name: "search_memory",
    arguments: { query: "protocol revision sandbox" },
  });
  assert.match(found.content[0].text, new RegExp(id));
  const stored = await (await daemon.fetch(`/v1/memories/${id}`)).json();
  assert.equal(stored.record.namespace, ALPHA);
});

Deno.test("a server/discover header on another request is refused", async () => {
  await using daemon = await startTestDaemon();
  const cases: [string, string, RegExp][] = [
    ["another method", JSON.stringify({ ...DISCOVER, method: "tools/list" }), /server\/discover/],
    ["no id", JSON.stringify({ ...DISCOVER, id: undefined }), /id/],
    ["not JSON", "{server/discover", /invalid JSON/i],
  ];
  for (const [what, body, error] of cases) {
    const res = await fetch(daemon.url + ROUTES.mcp, {
      method: "POST",
      headers: {
        ...auth(daemon, ALPHA),
        "content-type": "application/json",
        "mcp-method": "server/discover",
      },
      body,
    });
    const text = await res.text();
    assert.equal(res.status, 400, `${what}: ${text}`);
    assert.match(text, error, what);
  }
});

Deno.test("what the stdio relay keeps is alike for every project: initialize and tools/list, id last", async () => {
  await using daemon = await startTestDaemon();
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-mcp-route-" });
  try {
    const namespaces = [
      resolveProject(await gitRepository(home, "shop"), { actor: "tester", home }).namespace,
      resolveProject(await gitRepository(home, "blog"), { actor: "tester", home }).namespace,
    ];
    assert.notEqual(namespaces[0], namespaces[1]);
    // Lines as the relay posts them: the SDK's client writes the id last.
    const lines = [
      `{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
      `"clientInfo":{"name":"relay-test","version":"0"}},"jsonrpc":"2.0","id":0}`,
      `{"method":"tools/list","jsonrpc":"2.0","id":1}`,
    ];
    for (const [i, line] of lines.entries()) {
      const answers = await Promise.all(namespaces.map(async (namespace) => {
        const res = await fetch(daemon.url + ROUTES.mcp, {
          method: "POST",
          headers: {
            ...auth(daemon, namespace),
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: line,
        });
        assert.equal(res.status, 200);
        return await res.text();
      }));
      // The relay keeps a result only in this shape, and serves it to every project.
      assert.match(answers[0], new RegExp(`^\\{"result":.*"id":${i}\\}$`));
      assert.equal(answers[1], answers[0], "the same answer for another project");
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
