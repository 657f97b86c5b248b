// Integration tests: the real daemon as a subprocess, driven over HTTP on loopback.
import assert from "node:assert/strict";
import { MAX_REQUEST_BYTES } from "@kiro-learn/core/schemas";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { failOnHang, makeEvent, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { fuzzEventBodies, postJson, rawHttp, startTestDaemon } from "../../tooling/testing/mod.ts";
import { BODY_READ_TIMEOUT_MS } from "../http/mod.ts";
import { checkCollectorProof, helloPath, newHelloNonce } from "@kiro-learn/core/api/wire";

// fetch() will not send a forged Host header, so DNS-rebinding requests are written by hand.
function rawRequest(port: number, host: string, token: string): Promise<string> {
  return rawHttp(port, { path: "/v1/stats", host, headers: { authorization: `Bearer ${token}` } });
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return await res.json();
}

Deno.test("routes answer with the documented codes and shapes", async (t) => {
  await using daemon = await startTestDaemon();

  await t.step("GET /healthz", async () => {
    const res = await fetch(daemon.url + "/healthz");
    assert.equal(res.status, 200);
    assert.equal((await json(res)).status, "ok");
  });

  await t.step("GET /hello proves the token without one; a bad nonce is a 400", async () => {
    const nonce = newHelloNonce();
    const res = await fetch(daemon.url + helloPath(nonce));
    assert.equal(res.status, 200);
    const { proof } = await json(res);
    assert.equal(
      await checkCollectorProof(daemon.token, { port: daemon.port, nonce, proof }),
      true,
    );
    assert.equal(
      await checkCollectorProof("not-the-token", { port: daemon.port, nonce, proof }),
      false,
    );
    for (const bad of ["", "abc", "0".repeat(31) + "G", "0".repeat(33), "A".repeat(32)]) {
      const refused = await fetch(daemon.url + helloPath(bad));
      assert.equal(refused.status, 400, bad);
      assert.match(String((await json(refused)).details), /32 lowercase hex/);
    }
    const post = await fetch(daemon.url + helloPath(nonce), { method: "POST" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
  });

  const event = makeEvent({ body: { type: "text", content: "first prompt about sqlite" } });
  await t.step("POST /v1/events stores once, then reports the duplicate", async () => {
    const first = await json(await postJson(daemon, "/v1/events", event));
    assert.deepEqual(first, { event_id: event.event_id, stored: true });
    const again = await json(await postJson(daemon, "/v1/events", event));
    assert.deepEqual(again, { event_id: event.event_id, stored: false });
  });

  await t.step("ids outside the ULID spec get a clear 400 and change nothing", async () => {
    for (const event_id of ["8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01ARZ3NDEKTSV4RRFFQ69G5FAI"]) {
      const res = await postJson(daemon, "/v1/events", { ...makeEvent(), event_id });
      assert.equal(res.status, 400, event_id);
      const body = await json(res);
      assert.match(JSON.stringify(body.details), /must be a ULID: 26 characters .* first one 0-7/);
    }
    const record = makeRecord({ record_id: "mr_ZZZZZZZZZZZZZZZZZZZZZZZZZZ" });
    const saved = await postJson(daemon, "/v1/memories", record);
    assert.equal(saved.status, 400);
    assert.match(JSON.stringify((await json(saved)).details), /mr_ followed by a ULID/);
    const bad = "mr_8ZZZZZZZZZZZZZZZZZZZZZZZZZ";
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const res = await daemon.fetch(`/v1/memories/${bad}`, {
        method,
        headers: { "content-type": "application/json" },
        body: method === "PATCH" ? JSON.stringify({ title: "x" }) : undefined,
      });
      assert.equal(res.status, 400, method);
      const body = await json(res);
      assert.equal(body.error, "invalid record id");
      assert.match(String(body.details), /first one 0-7/);
    }
    const listed = await json(await daemon.fetch("/v1/events?limit=200"));
    const items = listed.items as { event_id: string }[];
    assert.ok(!items.some((e) => e.event_id.startsWith("8")), "nothing was stored");
  });

  await t.step("POST /v1/events refuses invalid input with 400/413/415", async () => {
    const invalid = await postJson(daemon, "/v1/events", { ...event, kind: "bogus" });
    assert.equal(invalid.status, 400);
    const body = await json(invalid);
    assert.equal(body.error, "validation failed");
    assert.ok(Array.isArray(body.details));
    const malformed = await daemon.fetch("/v1/events", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(malformed.status, 400);
    assert.equal((await json(malformed)).error, "invalid JSON");
    const wrongType = await daemon.fetch("/v1/events", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify(event),
    });
    assert.equal(wrongType.status, 415);
    await wrongType.body?.cancel();
    const huge = await daemon.fetch("/v1/events", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(MAX_REQUEST_BYTES + 1),
    });
    assert.equal(huge.status, 413);
    await huge.body?.cancel();
    const streamed = await daemon.fetch("/v1/events", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Blob(["x".repeat(MAX_REQUEST_BYTES + 1)]).stream(),
    });
    assert.equal(streamed.status, 413);
    await streamed.body?.cancel();
  });

  await t.step("token, Host and Origin are enforced", async () => {
    const none = await fetch(daemon.url + "/v1/stats");
    assert.equal(none.status, 401);
    assert.match(none.headers.get("www-authenticate") ?? "", /Bearer/);
    await none.body?.cancel();
    const wrong = await daemon.fetch("/v1/stats", { headers: { authorization: "Bearer nope" } });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    const host = await rawRequest(daemon.port, "attacker.example", daemon.token);
    assert.match(host, /^HTTP\/1.1 403/);
    assert.match(host, /forbidden host/);
    const rebinding = await rawRequest(
      daemon.port,
      `attacker.example:${daemon.port}`,
      daemon.token,
    );
    assert.match(rebinding, /^HTTP\/1.1 403/);
    const good = await rawRequest(daemon.port, `127.0.0.1:${daemon.port}`, daemon.token);
    assert.match(good, /^HTTP\/1.1 200/);
    const origin = await daemon.fetch("/v1/stats", {
      headers: { origin: "https://attacker.example" },
    });
    assert.equal(origin.status, 403);
    await origin.body?.cancel();
    const sameOrigin = await daemon.fetch("/v1/stats", {
      headers: { origin: `http://localhost:${daemon.port}` },
    });
    assert.equal(sameOrigin.status, 200);
    await sameOrigin.body?.cancel();
  });

  await t.step("the root redirects a browser to the viewer", async () => {
    const res = await fetch(daemon.url + "/", { redirect: "manual" });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), "/ui");
    await res.body?.cancel();
  });

  await t.step("404 and 405 with Allow", async () => {
    const missing = await daemon.fetch("/v1/nothing");
    assert.equal(missing.status, 404);
    assert.deepEqual(await json(missing), { error: "not found" });
    const method = await daemon.fetch("/v1/stats", { method: "PUT" });
    assert.equal(method.status, 405);
    assert.equal(method.headers.get("allow"), "GET");
    await method.body?.cancel();
  });

  const record = makeRecord({
    title: "Collector uses WAL",
    summary:
      "The database runs in WAL mode with synchronous NORMAL. <private>secret plan</private>",
    facts: ["token ghp_" + "a".repeat(36) + " was rotated"],
  });
  await t.step("POST /v1/memories scrubs, stores, and answers 409 on a duplicate id", async () => {
    const res = await postJson(daemon, "/v1/memories", record);
    assert.deepEqual(await json(res), { record_id: record.record_id, stored: true });
    const dup = await postJson(daemon, "/v1/memories", record);
    assert.equal(dup.status, 409);
    assert.equal((await json(dup)).error, "conflict");
    const got = await json(await daemon.fetch(`/v1/memories/${record.record_id}`));
    const stored = got.record as { summary: string; facts: string[] };
    assert.ok(!stored.summary.includes("secret plan"));
    assert.ok(stored.summary.includes("[REDACTED]"));
    assert.ok(!stored.facts[0].includes("ghp_aaaa"));
  });

  await t.step("GET /v1/memories pages and validates", async () => {
    const page = await json(await daemon.fetch("/v1/memories?limit=1&offset=0"));
    assert.equal(page.total, 1);
    assert.equal(page.limit, 1);
    const bad = await daemon.fetch("/v1/memories?limit=ten");
    assert.equal(bad.status, 400);
    assert.equal((await json(bad)).error, "limit must be an integer");
    const badNs = await daemon.fetch("/v1/memories?namespace=/etc/passwd");
    assert.equal(badNs.status, 400);
    await badNs.body?.cancel();
  });

  await t.step("GET /v1/memories/search finds by stem, needs namespace and query", async () => {
    const params = new URLSearchParams({ namespace: TEST_NAMESPACE, query: "synchronous modes" });
    const hits = await (await daemon.fetch(`/v1/memories/search?${params}`)).json();
    assert.deepEqual(hits.map((r: { record_id: string }) => r.record_id), [record.record_id]);
    const noNs = await daemon.fetch("/v1/memories/search?query=x");
    assert.equal((await json(noNs)).error, "namespace parameter is required");
    const noQuery = await daemon.fetch(`/v1/memories/search?namespace=${TEST_NAMESPACE}`);
    assert.equal((await json(noQuery)).error, "query parameter is required");
  });

  await t.step("inline retrieval returns the context and records the injection", async () => {
    const prompt = makeEvent({ body: { type: "text", content: "is the database in WAL mode?" } });
    const res = await json(await postJson(daemon, "/v1/events?retrieve=true", prompt));
    const retrieval = res.retrieval as { context: string; records: string[]; latency_ms: number };
    assert.deepEqual(retrieval.records, [record.record_id]);
    assert.match(
      retrieval.context,
      /^## Prior observations from kiro-learn\n\n### Collector uses WAL/,
    );
    assert.equal(typeof retrieval.latency_ms, "number");
    const audit = await json(await daemon.fetch("/v1/retrievals?limit=1"));
    const [row] = audit.items as { query: string; results: { record_id: string }[] }[];
    assert.equal(row.query, "is the database in WAL mode?");
    assert.equal(row.results[0].record_id, record.record_id);
    const tool = makeEvent({ kind: "tool_use" });
    const noRetrieval = await json(await postJson(daemon, "/v1/events?retrieve=true", tool));
    assert.equal(noRetrieval.retrieval, undefined);
  });

  await t.step("the retrieval query is scrubbed before it is searched or logged", async () => {
    const prompt = makeEvent({
      body: {
        type: "text",
        content: "deploy with AKIAABCDEFGHIJKLMNOP <private>my plan</private>",
      },
    });
    await postJson(daemon, "/v1/events?retrieve=true", prompt).then((r) => r.body?.cancel());
    const audit = await json(await daemon.fetch("/v1/retrievals?limit=1"));
    const [row] = audit.items as { query: string }[];
    assert.ok(!row.query.includes("AKIAABCDEFGHIJKLMNOP"));
    assert.ok(!row.query.includes("my plan"));
  });

  await t.step("GET /v1/events and /v1/stats", async () => {
    const events = await json(await daemon.fetch(`/v1/events?namespace=${TEST_NAMESPACE}`));
    assert.equal(events.total, 4);
    const stats = await json(await daemon.fetch("/v1/stats"));
    assert.equal(stats.total_events, 4);
    assert.equal(stats.total_memories, 1);
    assert.ok(Array.isArray(stats.queue));
  });

  await t.step("PATCH edits and DELETE forgets, cascading", async () => {
    const edited = await daemon.fetch(`/v1/memories/${record.record_id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Collector uses WAL journaling" }),
    });
    const editedBody = await json(edited);
    assert.equal(editedBody.title, "Collector uses WAL journaling", JSON.stringify(editedBody));
    const del = await daemon.fetch(`/v1/memories/${record.record_id}`, { method: "DELETE" });
    assert.deepEqual(await json(del), {
      record_id: record.record_id,
      deleted: true,
      source_events_deleted: 0,
    });
    const again = await daemon.fetch(`/v1/memories/${record.record_id}`, { method: "DELETE" });
    assert.equal(again.status, 404);
    await again.body?.cancel();
    const audit = await json(await daemon.fetch("/v1/retrievals?limit=5"));
    for (const row of audit.items as { results: { record_id: string }[] }[]) {
      assert.ok(row.results.every((r) => r.record_id !== record.record_id));
    }
  });
});

Deno.test("scrub and redaction happen before the event touches disk", async () => {
  await using daemon = await startTestDaemon();
  const secret = "sk-proj-" + "Z".repeat(40);
  const event = makeEvent({
    kind: "tool_use",
    body: {
      type: "json",
      data: {
        tool_name: "execute_bash",
        tool_input: { command: `export OPENAI_API_KEY=${secret}` },
        "<private>k</private>": "<private>v</private>",
      },
    },
  });
  assert.equal((await postJson(daemon, "/v1/events", event)).status, 200);
  const raw = await Deno.readFile(`${daemon.dataDir}/kiro-learn.db`);
  const wal = await Deno.readFile(`${daemon.dataDir}/kiro-learn.db-wal`).catch(() =>
    new Uint8Array()
  );
  const text = new TextDecoder("latin1").decode(raw) + new TextDecoder("latin1").decode(wal);
  assert.ok(!text.includes(secret), "the secret reached the database file");
  assert.ok(text.includes("execute_bash"));
});

Deno.test("fuzzed bodies never produce a 500 and never store anything invalid", async () => {
  await using daemon = await startTestDaemon();
  const report = await fuzzEventBodies(daemon, { runs: 150, seed: Date.now() });
  const unexpected = Object.keys(report.statuses).filter((s) => s !== "200" && s !== "400");
  assert.deepEqual(unexpected, [], `statuses ${JSON.stringify(report.statuses)}`);
  assert.equal(report.invalidStored, 0);
});

// How fast this is, is the retrieval benchmark's job; here the budget is the largest allowed so a
// loaded machine cannot turn a slow search into an empty answer.
Deno.test("retrieval over 10k records injects matching records", async () => {
  await using daemon = await startTestDaemon({ settings: { retrieval: { budgetMs: 5000 } } });
  const storage = openSqliteStorage(`${daemon.dataDir}/kiro-learn.db`);
  const words = ["queue", "snapshot", "watermark", "sqlite", "retry", "socket", "parser", "cache"];
  for (let batch = 0; batch < 10; batch++) {
    const records = Array.from({ length: 1000 }, (_, i) => ({
      record: makeRecord({
        title: `${words[i % 8]} fix ${batch}-${i}`,
        summary: `Changed the ${words[(i * 3) % 8]} handling and the ${words[(i * 5) % 8]} path.`,
      }),
    }));
    await storage.commitExtraction({ consumedSeqs: [], records });
  }
  // The one record that answers, among 10k that share its common words.
  const answer = makeRecord({
    title: "snapshot: retry the watermark read in drain_snapshot_queue",
    summary: "drain_snapshot_queue re-reads the watermark when the snapshot is busy.",
    files_touched: ["src/queue/drain_snapshot_queue.ts"],
  });
  await storage.commitExtraction({ consumedSeqs: [], records: [{ record: answer }] });
  storage.close();
  const prompt = makeEvent({
    body: { type: "text", content: "why does drain_snapshot_queue retry the watermark?" },
  });
  const res = await (await postJson(daemon, "/v1/events?retrieve=true", prompt)).json();
  assert.equal(res.retrieval.records[0], answer.record_id, "the answer is injected first");
  assert.match(res.retrieval.context, /drain_snapshot_queue/);
  const audit = await (await daemon.fetch("/v1/retrievals?limit=1")).json();
  assert.equal(audit.items[0].outcome, "ok");
});

Deno.test("a collector configured on another 127.x address answers its own Host", async () => {
  await using daemon = await startTestDaemon({ settings: { collector: { host: "127.0.0.2" } } });
  const res = await fetch(`http://127.0.0.2:${daemon.port}/v1/stats`, {
    headers: { authorization: `Bearer ${daemon.token}` },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("a client that sends headers and then nothing gets 408 (the default timeout)", async () => {
  await using daemon = await startTestDaemon();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: daemon.port });
  let text = "";
  try {
    await conn.write(
      new TextEncoder().encode(
        `POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${daemon.port}\r\n` +
          `Authorization: Bearer ${daemon.token}\r\nContent-Type: application/json\r\n` +
          `Content-Length: 5000\r\n\r\n{"event_id":`,
      ),
    );
    const buf = new Uint8Array(4096);
    const read = async () => {
      while (!/"error":"request body timeout"/.test(text)) {
        const n = await conn.read(buf);
        if (n === null) return;
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
    };
    await failOnHang(read(), "the stalled request");
  } finally {
    conn.close();
  }
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.match(text, new RegExp(`within ${BODY_READ_TIMEOUT_MS / 1000} s`));
  // The collector still answers everyone else.
  const health = await daemon.fetch("/healthz");
  assert.equal(health.status, 200);
  await health.body?.cancel();
});

Deno.test("every response says nosniff, refusals included", async () => {
  await using daemon = await startTestDaemon();
  for (
    const [path, auth] of [["/healthz", true], ["/v1/stats", true], ["/v1/stats", false], [
      "/v1/nope",
      true,
    ], ["/ui", false]] as [string, boolean][]
  ) {
    const res = auth ? await daemon.fetch(path) : await fetch(daemon.url + path);
    await res.body?.cancel();
    assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${path} (${res.status})`);
  }
});
