/**
 * End to end: the real MCP server as a child process (launched with the exact argv the
 * installer registers), driven by the SDK's own Client over stdio, against a real collector.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { newEventId, newRecordId } from "@kiro-learn/core/ids";
import {
  buildNamespace,
  currentActor,
  projectIdFromRoot,
  resolveProject,
} from "@kiro-learn/core/project";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { type MemoryRecord, RECORD_LIMITS } from "@kiro-learn/core/schemas";
import {
  failOnHang,
  IMPOSTOR_INSTRUCTION,
  runGit,
  seedNamespace,
  startImpostor,
} from "@kiro-learn/core/testing";
import { mcpCommand } from "@kiro-learn/core/launch";
import { VERSION } from "@kiro-learn/core/version";
// Test-only reach into the collector member: its test daemon is the real thing.
import {
  connectMcp as connect,
  freePort,
  mcpBaseEnv,
  postJson,
  startTestDaemon,
  type TestDaemon,
} from "@kiro-learn/collector/testing";
import { NO_ACTIVITY_TEXT, NO_MATCHES_TEXT } from "./_format.ts";
import { TOOL_NAMES } from "./tools.ts";

const FAKE_GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"; // 36 chars after ghp_

async function makeProject(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-mcp-project-" });
  await Deno.mkdir(join(dir, ".git"));
  return Deno.realPath(dir);
}

/** Writes a data dir into `home`: its API token, and settings naming a collector at `port`. */
async function writeDataDir(home: string, options: { token: string; port: number }): Promise<void> {
  await Deno.writeTextFile(join(home, "token"), `${options.token}\n`);
  await Deno.writeTextFile(
    join(home, "settings.json"),
    JSON.stringify({ collector: { host: "127.0.0.1", port: options.port } }),
  );
}

async function stored(daemon: TestDaemon, id: string): Promise<MemoryRecord> {
  const res = await daemon.fetch(`/v1/memories/${id}`);
  assert.equal(res.status, 200, `GET ${id}`);
  return (await res.json()).record;
}

function savedId(text: string, prefix: string): string {
  const match = new RegExp(`^${prefix} (mr_[0-9A-Z]{26})$`).exec(text);
  assert.ok(match, `unexpected reply: ${text}`);
  return match[1];
}

// The SDK's stdio client keeps node streams and child handles the sanitizers cannot attribute.
const SANITIZE = { sanitizeOps: false, sanitizeResources: false } as const;

Deno.test("MCP server against a real collector", SANITIZE, async (t) => {
  await using daemon = await startTestDaemon();
  const projectDir = await makeProject();
  const namespace = resolveProject(projectDir).namespace;
  await using session = await connect({ port: daemon.port, env: daemon.env, cwd: projectDir });
  const { call, client } = session;

  await t.step("identifies itself and lists the six tools with their schemas", async () => {
    assert.deepEqual(client.getServerVersion(), { name: "kiro-learn-memory", version: VERSION });
    assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), [...TOOL_NAMES]);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    // deno-lint-ignore no-explicit-any
    const props = (name: string) => byName[name].inputSchema.properties as Record<string, any>;

    assert.deepEqual(byName.search_memory.inputSchema.required, ["query"]);
    assert.equal(props("search_memory").query.minLength, 1);
    assert.equal(props("search_memory").query.maxLength, 1000);
    assert.deepEqual(
      { ...props("search_memory").limit, description: undefined },
      { type: "integer", minimum: 1, maximum: 100, default: 10, description: undefined },
    );
    assert.deepEqual(props("search_memory").observation_type.enum, [
      "tool_use",
      "decision",
      "error",
      "discovery",
      "pattern",
      "session_summary",
    ]);

    assert.equal(props("get_memories").ids.minItems, 1);
    assert.equal(props("get_memories").ids.maxItems, 50);
    assert.equal(props("recent_activity").limit.maximum, 50);
    assert.equal(props("recent_activity").limit.default, 10);
    assert.equal(byName.recent_activity.inputSchema.required, undefined);

    assert.deepEqual(byName.save_observation.inputSchema.required, [
      "title",
      "summary",
      "observation_type",
    ]);
    assert.equal(props("save_observation").title.maxLength, RECORD_LIMITS.title);
    assert.equal(props("save_observation").summary.maxLength, RECORD_LIMITS.summary);
    assert.deepEqual(props("save_observation").observation_type.enum, [
      "tool_use",
      "decision",
      "error",
      "discovery",
      "pattern",
    ]);
    assert.equal(props("save_observation").concepts.maxItems, 50);
    assert.equal(props("save_observation").files_touched.maxItems, 100);
    assert.equal(props("save_observation").facts.maxItems, 50);

    assert.deepEqual(byName.save_session_summary.inputSchema.required, [
      "request",
      "investigated",
      "learned",
      "completed",
      "next_steps",
      "files_read",
      "files_modified",
    ]);
    assert.equal(props("save_session_summary").files_read.type, "array");
    assert.deepEqual(byName.forget_memory.inputSchema.required, ["id"]);

    for (const name of ["search_memory", "get_memories", "recent_activity"]) {
      assert.equal(byName[name].annotations?.readOnlyHint, true, name);
      assert.equal(byName[name].annotations?.idempotentHint, true, name);
    }
    for (const name of ["save_observation", "save_session_summary"]) {
      assert.equal(byName[name].annotations?.readOnlyHint, false, name);
      assert.equal(byName[name].annotations?.destructiveHint, false, name);
      assert.equal(byName[name].annotations?.idempotentHint, false, name);
    }
    assert.equal(byName.forget_memory.annotations?.destructiveHint, true);
    assert.equal(byName.forget_memory.annotations?.idempotentHint, true);
    assert.ok(tools.every((tool) => tool.annotations?.openWorldHint === false));
  });

  let observationId = "";

  await t.step("save_observation stores an mcp_observation in the project namespace", async () => {
    const reply = await call("save_observation", {
      title: "Use WAL journal mode for the quokka store",
      summary: "The quokka store runs SQLite in WAL mode so readers never block the writer.",
      observation_type: "decision",
      concepts: ["sqlite", "wal", "sqlite"],
      files_touched: ["core/storage/sqlite.ts"],
      facts: ["WAL needs synchronous=NORMAL for speed"],
    });
    assert.equal(reply.isError, false, reply.text);
    observationId = savedId(reply.text, "Saved observation");
    const record = await stored(daemon, observationId);
    assert.equal(record.namespace, namespace);
    assert.equal(record.strategy, "mcp_observation");
    assert.equal(record.observation_type, "decision");
    assert.deepEqual(record.concepts, ["sqlite", "wal"]);
    assert.deepEqual(record.files_touched, ["core/storage/sqlite.ts"]);
    assert.deepEqual(record.facts, ["WAL needs synchronous=NORMAL for speed"]);
    assert.equal(record.source_event_ids.length, 1, "one synthetic source id");
  });

  await t.step("search_memory finds it with its id; the type filter applies", async () => {
    const hit = await call("search_memory", { query: "quokka WAL" });
    assert.equal(hit.isError, false, hit.text);
    assert.match(
      hit.text,
      new RegExp(
        `^1\\. \\[decision\\] Use WAL journal mode for the quokka store \\(${observationId}\\)\\n` +
          "   The quokka store runs SQLite",
      ),
    );
    const typed = await call("search_memory", { query: "quokka", observation_type: "decision" });
    assert.ok(typed.text.includes(observationId));
    const otherType = await call("search_memory", { query: "quokka", observation_type: "error" });
    assert.equal(otherType.text, NO_MATCHES_TEXT);
    assert.equal(otherType.isError, false);
    const none = await call("search_memory", { query: "zebra-nonexistent-term" });
    assert.equal(none.text, NO_MATCHES_TEXT);
  });

  await t.step("get_memories returns full records and lists unknown ids", async () => {
    const unknown = newRecordId();
    const reply = await call("get_memories", { ids: [observationId, unknown] });
    assert.equal(reply.isError, false, reply.text);
    const record = await stored(daemon, observationId);
    for (
      const part of [
        "# Use WAL journal mode for the quokka store",
        `id: ${observationId}`,
        "type: decision",
        `created_at: ${record.created_at}`,
        "readers never block the writer",
        "Facts:\n- WAL needs synchronous=NORMAL for speed",
        "Concepts: sqlite, wal",
        "Files:\n- core/storage/sqlite.ts",
        record.source_event_ids[0],
        `Not found in this project: ${unknown}`,
      ]
    ) assert.ok(reply.text.includes(part), `missing ${part} in\n${reply.text}`);
  });

  await t.step("recent_activity lists it, newest first, and honours since", async () => {
    const reply = await call("recent_activity", {});
    assert.equal(reply.isError, false, reply.text);
    assert.ok(reply.text.includes(observationId));
    assert.match(reply.text, /newest first/);
    const future = await call("recent_activity", { since: "2999-01-01" });
    assert.equal(future.text, NO_ACTIVITY_TEXT);
    const past = await call("recent_activity", { since: "2000-01-01T00:00:00+02:00", limit: 1 });
    assert.ok(past.text.includes(observationId));
  });

  let summaryId = "";

  await t.step("save_session_summary stores a session_summary built as seed 000 says", async () => {
    const reply = await call("save_session_summary", {
      request: "Make the\nlogin test stable",
      investigated: "Looked at the pangolin fixture clock.",
      learned: "The fixture used the real clock.",
      completed: "Froze the clock.",
      next_steps: "Check the other fixtures.",
      files_read: ["test/login_test.ts", "src/clock.ts"],
      files_modified: ["test/login_test.ts", "test/fixtures.ts"],
    });
    assert.equal(reply.isError, false, reply.text);
    summaryId = savedId(reply.text, "Saved session summary");
    const record = await stored(daemon, summaryId);
    assert.equal(record.namespace, namespace);
    assert.equal(record.observation_type, "session_summary");
    assert.equal(record.strategy, "mcp_session_summary");
    assert.equal(record.title, "Make the login test stable");
    assert.equal(
      record.summary,
      "## What was investigated\n\nLooked at the pangolin fixture clock.\n\n" +
        "## What was learned\n\nThe fixture used the real clock.\n\n" +
        "## What was completed\n\nFroze the clock.\n\n" +
        "## Next steps\n\nCheck the other fixtures.",
    );
    assert.deepEqual(record.files_touched, [
      "test/login_test.ts",
      "src/clock.ts",
      "test/fixtures.ts",
    ]);
    assert.deepEqual(record.concepts, []);
    assert.deepEqual(record.facts, []);
    assert.equal(record.source_event_ids.length, 1);

    const recent = await call("recent_activity", { limit: 5 });
    assert.ok(recent.text.indexOf(summaryId) < recent.text.indexOf(observationId), "newest first");
    assert.match(recent.text, /\(1 session summary\)/);
    const found = await call("search_memory", {
      query: "pangolin",
      observation_type: "session_summary",
    });
    assert.ok(found.text.includes(summaryId));
  });

  await t.step("a long session summary drops sections from the bottom", async () => {
    const reply = await call("save_session_summary", {
      request: "r".repeat(300),
      investigated: "i".repeat(1800),
      learned: "l".repeat(1800),
      completed: "c".repeat(1800),
      next_steps: "n".repeat(1800),
      files_read: [],
      files_modified: [],
    });
    assert.equal(reply.isError, false, reply.text);
    const record = await stored(daemon, savedId(reply.text, "Saved session summary"));
    assert.equal(record.title, "r".repeat(200));
    assert.ok(record.summary.length <= 4000);
    assert.ok(record.summary.endsWith("\n\n[truncated]"));
    assert.ok(record.summary.includes("## What was investigated\n\n" + "i".repeat(1800)));
    assert.ok(record.summary.includes("## What was learned\n\n" + "l".repeat(1800)));
    assert.ok(!record.summary.includes("## What was completed"));
    assert.ok(!record.summary.includes("## Next steps"));
  });

  await t.step("<private> spans and secrets are redacted in what gets stored", async () => {
    const reply = await call("save_observation", {
      title: `Deploy key ${FAKE_GITHUB_TOKEN}`,
      summary: "Deploys use <private>the staging password is hunter2</private> and " +
        `the token ${FAKE_GITHUB_TOKEN} from CI.`,
      observation_type: "discovery",
      facts: [`CI token is ${FAKE_GITHUB_TOKEN}`, "<private>office door code 4711</private>"],
      concepts: ["deploy"],
    });
    assert.equal(reply.isError, false, reply.text);
    const record = await stored(daemon, savedId(reply.text, "Saved observation"));
    const all = JSON.stringify(record);
    assert.ok(!all.includes(FAKE_GITHUB_TOKEN), all);
    assert.ok(!all.includes("hunter2"), all);
    assert.ok(!all.includes("4711"), all);
    assert.match(record.title, /\[REDACTED/);
    assert.match(record.summary, /\[REDACTED\]/);
    assert.match(record.facts[0], /\[REDACTED:/);

    const summary = await call("save_session_summary", {
      request: "Rotate keys",
      investigated: `Found ${FAKE_GITHUB_TOKEN} in .env`,
      learned: "<private>it was my personal token</private>",
      completed: "Rotated.",
      next_steps: "",
      files_read: [".env"],
      files_modified: [],
    });
    const summaryRecord = await stored(daemon, savedId(summary.text, "Saved session summary"));
    assert.ok(!JSON.stringify(summaryRecord).includes(FAKE_GITHUB_TOKEN));
    assert.ok(!JSON.stringify(summaryRecord).includes("personal token"));
  });

  await t.step("forget_memory removes the record and search no longer finds it", async () => {
    const reply = await call("forget_memory", { id: observationId });
    assert.deepEqual(reply, { text: `Forgot ${observationId}`, isError: false });
    const gone = await daemon.fetch(`/v1/memories/${observationId}`);
    await gone.body?.cancel();
    assert.equal(gone.status, 404);
    const search = await call("search_memory", { query: "quokka" });
    assert.equal(search.text, NO_MATCHES_TEXT);
    const again = await call("forget_memory", { id: observationId });
    assert.equal(again.isError, true);
    assert.match(again.text, new RegExp(`No memory ${observationId} in this project`));
    const read = await call("get_memories", { ids: [observationId] });
    assert.match(read.text, new RegExp(`Not found in this project: ${observationId}`));
  });

  await t.step("another project's records are neither shown nor deleted", async () => {
    const foreign = {
      record_id: newRecordId(),
      namespace: "/actor/someone/project/elsewhere/",
      strategy: "heuristic",
      title: "Foreign record",
      summary: "Belongs to another project.",
      observation_type: "discovery",
      source_event_ids: [newEventId()],
      created_at: new Date().toISOString(),
    };
    const res = await postJson(daemon, "/v1/memories", foreign);
    await res.body?.cancel();
    assert.equal(res.status, 200);
    const read = await call("get_memories", { ids: [foreign.record_id] });
    assert.ok(!read.text.includes("Foreign record"));
    const forget = await call("forget_memory", { id: foreign.record_id });
    assert.equal(forget.isError, true);
    assert.equal((await stored(daemon, foreign.record_id)).title, "Foreign record");
  });

  await t.step("schema violations are rejected with messages naming the field", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["search_memory", { query: "x", limit: 0 }, /limit/],
      ["search_memory", { query: "x", limit: 101 }, /limit/],
      ["search_memory", { query: "" }, /query/],
      ["search_memory", { query: "x".repeat(1001) }, /query/],
      ["search_memory", { query: "x", observation_type: "gossip" }, /observation_type/],
      ["save_observation", { summary: "s", observation_type: "decision" }, /title/],
      [
        "save_observation",
        { title: "t", summary: "s", observation_type: "bogus" },
        /observation_type/,
      ],
      [
        "save_observation",
        { title: "t", summary: "s", observation_type: "session_summary" },
        /observation_type/,
      ],
      [
        "save_observation",
        { title: "x".repeat(201), summary: "s", observation_type: "error" },
        /title/,
      ],
      ["get_memories", { ids: [] }, /ids/],
      ["get_memories", { ids: ["not-an-id"] }, /mr_ followed by 26 ULID characters/],
      ["recent_activity", { since: "last tuesday" }, /ISO 8601/],
      ["recent_activity", { limit: 51 }, /limit/],
      ["forget_memory", {}, /id/],
      ["save_session_summary", { request: "r" }, /investigated/],
    ];
    for (const [name, args, field] of cases) {
      const reply = await call(name, args);
      assert.equal(reply.isError, true, `${name} ${JSON.stringify(args)} was accepted`);
      assert.match(reply.text, /Input validation error/, reply.text);
      assert.match(reply.text, field, reply.text);
    }
  });

  await t.step(
    "the project dir can come from KIRO_LEARN_PROJECT_DIR or CLAUDE_PROJECT_DIR",
    async () => {
      const elsewhere = await Deno.makeTempDir({ prefix: "kiro-learn-mcp-elsewhere-" });
      try {
        for (const variable of ["KIRO_LEARN_PROJECT_DIR", "CLAUDE_PROJECT_DIR"]) {
          await using other = await connect({
            port: daemon.port,
            env: { ...daemon.env, [variable]: projectDir },
            cwd: elsewhere,
          });
          const reply = await other.call("save_observation", {
            title: `Via ${variable}`,
            summary: "Namespace from the environment.",
            observation_type: "pattern",
          });
          const record = await stored(daemon, savedId(reply.text, "Saved observation"));
          assert.equal(record.namespace, namespace, variable);
        }
      } finally {
        await Deno.remove(elsewhere, { recursive: true });
      }
    },
  );

  await t.step(
    "a collector that goes away yields error results; the server keeps answering",
    async () => {
      await daemon.kill();
      const down = await call("search_memory", { query: "anything" });
      assert.equal(down.isError, true);
      assert.match(down.text, /not running/);
      assert.match(down.text, /kiro-learn start/);
      await daemon.restart();
      const back = await call("search_memory", { query: "pangolin" });
      assert.equal(back.isError, false, back.text);
      assert.ok(back.text.includes(summaryId));
    },
  );

  assert.ok(!session.stderr().includes("uncaught"), session.stderr());
  await Deno.remove(projectDir, { recursive: true });
});

Deno.test(
  "with no collector listening, every tool returns the how-to-start error",
  SANITIZE,
  async () => {
    const home = await Deno.makeTempDir({ prefix: "kiro-learn-mcp-down-" });
    const projectDir = await makeProject();
    const port = freePort();
    await writeDataDir(home, { token: "some-token", port });
    try {
      await using session = await connect({
        port,
        env: { KIRO_LEARN_HOME: home },
        cwd: projectDir,
      });
      const calls: [string, Record<string, unknown>][] = [
        ["search_memory", { query: "x" }],
        ["get_memories", { ids: [newRecordId()] }],
        ["recent_activity", {}],
        ["save_observation", { title: "t", summary: "s", observation_type: "decision" }],
        ["save_session_summary", {
          request: "r",
          investigated: "",
          learned: "",
          completed: "",
          next_steps: "",
          files_read: [],
          files_modified: [],
        }],
        ["forget_memory", { id: newRecordId() }],
      ];
      for (const [name, args] of calls) {
        const reply = await session.call(name, args);
        assert.equal(reply.isError, true, name);
        assert.match(
          reply.text,
          /^Error: The kiro-learn collector is not running at http:\/\/127\.0\.0\.1:/,
        );
        assert.match(reply.text, /`kiro-learn start`/);
        assert.match(reply.text, /`deno task serve`/);
      }
      // Still alive and answering after every failure.
      const { tools } = await session.client.listTools();
      assert.equal(tools.length, TOOL_NAMES.length);
      assert.equal((await session.call("recent_activity", {})).isError, true);
    } finally {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(projectDir, { recursive: true });
    }
  },
);

Deno.test(
  "a listener that cannot prove it is the collector: clear errors, no token, nothing of its shown",
  SANITIZE,
  async () => {
    const home = await Deno.makeTempDir({ prefix: "kiro-learn-mcp-impostor-" });
    const projectDir = await makeProject();
    const token = "mcp-secret-token-0123456789";
    await using impostor = startImpostor();
    const port = impostor.port;
    await writeDataDir(home, { token, port });
    try {
      await using session = await connect({
        port,
        env: { KIRO_LEARN_HOME: home },
        cwd: projectDir,
      });
      const calls: [string, Record<string, unknown>][] = [
        ["search_memory", { query: "x" }],
        ["recent_activity", {}],
        ["save_observation", { title: "t", summary: "s", observation_type: "decision" }],
      ];
      for (const [name, args] of calls) {
        const reply = await session.call(name, args);
        assert.equal(reply.isError, true, `${name}: ${reply.text}`);
        assert.match(
          reply.text,
          new RegExp(`listening at 127\\.0\\.0\\.1:${port} could not prove it is this data dir's`),
        );
        assert.match(reply.text, new RegExp(`lsof -i :${port}`));
        assert.ok(!reply.text.includes(IMPOSTOR_INSTRUCTION));
      }
      assert.ok(impostor.seen.length > 0, "the MCP server did ask the listener");
      for (const request of impostor.seen) {
        assert.equal(request.auth, null, `the token went to ${request.path}`);
        assert.equal(request.body, "", `a request body went to ${request.path}`);
        assert.match(request.path, /^\/hello\?nonce=[0-9a-f]{32}$/);
      }
    } finally {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(projectDir, { recursive: true });
    }
  },
);

Deno.test("stdout carries only JSON-RPC; logs go to stderr", SANITIZE, async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-mcp-stdout-" });
  const projectDir = await makeProject();
  const port = freePort();
  try {
    const [command, ...args] = mcpCommand({ host: "127.0.0.1", port });
    const child = new Deno.Command(command, {
      args,
      cwd: projectDir,
      env: { ...mcpBaseEnv(), KIRO_LEARN_HOME: home, KIRO_LEARN_PORT: String(port) },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const messages = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "recent_activity" } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "no_such_tool" } },
    ];
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(messages.map((m) => JSON.stringify(m)).join("\n") + "\n"),
    );
    // Closing stdin is how an agent ends the session; the server must then exit by itself.
    await writer.close();
    const output = await child.output();
    assert.equal(output.code, 0);
    const lines = new TextDecoder().decode(output.stdout).split("\n").filter((l) => l !== "");
    const replies = lines.map((line) => JSON.parse(line));
    assert.deepEqual(replies.map((r) => r.id).sort(), [1, 2, 3]);
    assert.ok(replies.every((r) => r.jsonrpc === "2.0"));
    const activity = replies.find((r) => r.id === 2);
    assert.equal(activity.result.isError, true);
    assert.match(activity.result.content[0].text, /kiro-learn start/);
    assert.equal(replies.find((r) => r.id === 3).result.isError, true);
    assert.match(new TextDecoder().decode(output.stderr), /\[kiro-learn-memory\] ready/);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(projectDir, { recursive: true });
  }
});

Deno.test("a collector address outside --allow-net is explained, not fatal", SANITIZE, async () => {
  const home = await Deno.makeTempDir({ prefix: "kiro-learn-mcp-perm-" });
  const projectDir = await makeProject();
  // Registered for one port while settings.json now names another (never the same number).
  const registered = freePort();
  let configured = freePort();
  while (configured === registered) configured = freePort();
  await writeDataDir(home, { token: "some-token", port: configured });
  try {
    await using session = await connect({
      port: registered,
      env: { KIRO_LEARN_HOME: home },
      cwd: projectDir,
    });
    const reply = await session.call("search_memory", { query: "x" });
    assert.equal(reply.isError, true);
    assert.match(reply.text, /not allowed to reach/);
    assert.match(reply.text, /Register the MCP server again/);
    assert.equal((await session.call("recent_activity", {})).isError, true);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(projectDir, { recursive: true });
  }
});

Deno.test(
  "a collector that accepts but never answers: the tool gives up at its 5 s timeout",
  SANITIZE,
  async () => {
    const home = await Deno.makeTempDir({ prefix: "kiro-learn-mcp-slow-" });
    const projectDir = await makeProject();
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const held: Deno.Conn[] = [];
    const accepting = (async () => {
      for await (const conn of listener) held.push(conn);
    })();
    await writeDataDir(home, { token: "some-token", port });
    try {
      await using session = await connect({
        port,
        env: { KIRO_LEARN_HOME: home },
        cwd: projectDir,
      });
      const reply = await failOnHang(
        session.call("search_memory", { query: "x" }),
        "a tool call against a silent collector",
      );
      assert.equal(reply.isError, true);
      // The reply names the 5 s timeout it waited for; the connection was made, then held.
      assert.match(reply.text, /did not answer within 5000 ms/);
      assert.match(reply.text, /kiro-learn start/);
      assert.ok(held.length >= 1, "the MCP server did connect");
      const { tools } = await session.client.listTools();
      assert.equal(tools.length, TOOL_NAMES.length);
    } finally {
      listener.close();
      await accepting.catch(() => {});
      for (const conn of held) conn.close();
      await Deno.remove(home, { recursive: true });
      await Deno.remove(projectDir, { recursive: true });
    }
  },
);

Deno.test(
  "in a repository with a remote, the first search finds memory kept under the old namespace",
  SANITIZE,
  async () => {
    await using daemon = await startTestDaemon();
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-mcp-remote-" }));
    try {
      await runGit(root, "init", "-q");
      await runGit(root, "remote", "add", "origin", "https://github.com/acme/quokka-shop.git");
      const project = resolveProject(root);
      assert.equal(project.id_source, "git-remote");
      // Memory from before project ids came from remotes: under the path's namespace.
      const oldNamespace = buildNamespace(currentActor(), projectIdFromRoot(root));
      const storage = openSqliteStorage(daemon.settings.paths.db);
      const seeded = await seedNamespace(storage, {
        namespace: oldNamespace,
        projectId: projectIdFromRoot(root),
        projectPath: root,
      });
      storage.close();
      await using session = await connect({ port: daemon.port, env: daemon.env, cwd: root });
      const hit = await session.call("search_memory", { query: "payments retries" });
      assert.equal(hit.isError, false, hit.text);
      assert.ok(hit.text.includes(seeded.recordIds[0]), hit.text);
      const stats = await (await daemon.fetch("/v1/stats")).json();
      assert.deepEqual(
        stats.projects.map((p: { namespace: string }) => p.namespace),
        [project.namespace],
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);
