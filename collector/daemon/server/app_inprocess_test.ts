// Every kind of route outcome through the app itself (Hono's app.request: no socket, no process),
// against a real SQLite store: quick enough to cover the codes one by one.
import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { makeEvent, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { silentLogger } from "../runtime/mod.ts";
import { startCollector } from "../mod.ts";
import { freePort } from "../../tooling/testing/mod.ts";

async function withCollector(fn: (c: Awaited<ReturnType<typeof startCollector>>) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-inprocess-" });
  await Deno.writeTextFile(
    `${dir}/settings.json`,
    JSON.stringify({ collector: { port: freePort() }, embedding: { backend: "off" } }),
  );
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: dir } });
  const collector = await startCollector(settings, { logger: silentLogger() });
  try {
    await fn(collector);
  } finally {
    await collector.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("in process: auth, Host, validation, not found, method, and the happy paths", async () => {
  await withCollector(async (c) => {
    const host = new URL(c.url).host;
    const call = (
      path: string,
      init: RequestInit & { token?: boolean; hostHeader?: string } = {},
    ) => {
      const headers = new Headers(init.headers);
      headers.set("host", init.hostHeader ?? host);
      if (init.token !== false) headers.set("authorization", `Bearer ${c.token}`);
      return c.request(`${c.url}${path}`, { ...init, headers });
    };
    const status = async (res: Promise<Response>) => {
      const r = await res;
      await r.body?.cancel();
      return r.status;
    };
    assert.equal(await status(call("/v1/stats", { token: false })), 401);
    assert.equal(await status(call("/v1/stats", { hostHeader: "evil.example:80" })), 403);
    assert.equal(await status(call("/v1/stats")), 200);
    assert.equal(await status(call("/v1/nowhere")), 404);
    assert.equal(await status(call("/v1/stats", { method: "DELETE" })), 405);
    const post = (path: string, body: unknown) =>
      call(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    assert.equal(await status(post("/v1/events", { kind: "nope" })), 400);
    assert.equal(await status(post("/v1/memories", { title: "" })), 400);
    assert.equal(await status(call("/v1/memories/search?namespace=" + TEST_NAMESPACE)), 400);
    assert.equal(
      await status(call(`/v1/memories/search?namespace=${TEST_NAMESPACE}&query=x&mode=magic`)),
      400,
    );

    const record = makeRecord({
      title: "parser: fix crash in parse_leap_day",
      files_touched: ["src/date.ts"],
    });
    assert.equal(await status(post("/v1/memories", record)), 200);
    assert.equal(await status(post("/v1/memories", record)), 409);
    const event = makeEvent({ body: { type: "text", content: "why does parse_leap_day crash?" } });
    const ingest = await (await post("/v1/events?retrieve=true", event)).json();
    assert.equal(ingest.stored, true);
    assert.deepEqual(ingest.retrieval.records, [record.record_id]);
    const found = await (await call(
      `/v1/memories/search?namespace=${TEST_NAMESPACE}&query=parse_leap_day`,
    )).json();
    assert.equal(found[0].record_id, record.record_id);
    const read = await (await call(`/v1/memories/${record.record_id}`)).json();
    assert.equal(read.record.title, record.title);
    assert.equal(
      await status(call(`/v1/memories/${record.record_id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "parser: crash in parse_leap_day, fixed" }),
      })),
      200,
    );
    assert.equal(await status(call(`/v1/memories/${record.record_id}`, { method: "DELETE" })), 200);
    assert.equal(await status(call(`/v1/memories/${record.record_id}`)), 404);
  });
});
