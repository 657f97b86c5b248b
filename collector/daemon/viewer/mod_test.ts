// The viewer's routes and the session-or-bearer rule, in process against the real app (no
// storage is touched by these routes, so a stub context is enough).
import assert from "node:assert/strict";
import { createApp } from "../server/mod.ts";
import type { CollectorContext } from "../server/mod.ts";
import { EventBus } from "../runtime/mod.ts";

const PORT = 47_123;
const ORIGIN = `http://127.0.0.1:${PORT}`;
const TOKEN = "t".repeat(64);

function setup() {
  const bus = new EventBus();
  const ctx = {
    settings: { collector: { host: "127.0.0.1", port: PORT } },
    logger: { debugEnabled: false, debug() {}, info() {}, warn() {}, error() {} },
    token: TOKEN,
    bus,
  } as unknown as CollectorContext;
  const app = createApp(ctx);
  const call = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    app.fetch(
      new Request(ORIGIN + path, {
        ...init,
        headers: { host: `127.0.0.1:${PORT}`, ...init.headers },
      }),
    );
  return { app, ctx, bus, call };
}

async function login(call: ReturnType<typeof setup>["call"]): Promise<string> {
  const res = await call("/v1/ui/codes", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(res.status, 201);
  const body = await res.json();
  assert.match(body.code, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(body.expires_in_s, 60);
  assert.equal(body.path, `/ui/login?code=${body.code}`);
  const redirect = await call(body.path);
  assert.equal(redirect.status, 303);
  assert.equal(redirect.headers.get("location"), "/ui");
  const cookie = redirect.headers.get("set-cookie")!;
  assert.match(
    cookie,
    new RegExp(`^kiro_learn_session_${PORT}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`),
  );
  return cookie.split(";")[0];
}

Deno.test("without a session every /ui page explains how to open the viewer", async () => {
  const { call } = setup();
  for (const path of ["/ui", "/ui/", "/ui/memories", "/ui/graph", "/ui/nope"]) {
    const res = await call(path);
    assert.equal(res.status, 401, path);
    const html = await res.text();
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /kiro-learn open/);
    assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
  }
  const asset = await call("/ui/static/app.css");
  assert.equal(asset.status, 200, "assets carry no data and load without a session");
  await asset.body?.cancel();
});

Deno.test("the one-time link grants a session that the UI and /v1 accept", async () => {
  const { call } = setup();
  const cookie = await login(call);
  const page = await call("/ui/memories", { headers: { cookie } });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /data-page="memories"/);
  const detail = await call(`/ui/memories/mr_${"0".repeat(26)}`, { headers: { cookie } });
  assert.match(await detail.text(), /data-record-id="mr_0{26}"/);
  const missing = await call("/ui/nope", { headers: { cookie } });
  assert.equal(missing.status, 404);
  await missing.body?.cancel();

  const feed = await call("/v1/feed", { headers: { cookie, "sec-fetch-site": "same-origin" } });
  assert.equal(feed.status, 200);
  assert.equal(feed.headers.get("content-type"), "text/event-stream; charset=utf-8");
  await feed.body?.cancel();
});

Deno.test("a code works once; a spent link shows the expired page", async () => {
  const { call } = setup();
  const res = await call("/v1/ui/codes", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const { path } = await res.json();
  assert.equal((await call(path)).status, 303);
  const again = await call(path);
  assert.equal(again.status, 403);
  assert.match(await again.text(), /expired or was already used/);
  const bogus = await call("/ui/login?code=guess");
  assert.equal(bogus.status, 403);
  await bogus.body?.cancel();
});

Deno.test("only the bearer token mints codes; a session cannot", async () => {
  const { call } = setup();
  const cookie = await login(call);
  const viaSession = await call("/v1/ui/codes", {
    method: "POST",
    headers: { cookie, origin: ORIGIN },
  });
  assert.equal(viaSession.status, 401);
  await viaSession.body?.cancel();
  const anonymous = await call("/v1/ui/codes", { method: "POST" });
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
});

Deno.test("a session is refused cross-site and, for changes, without our Origin", async () => {
  const { call } = setup();
  const cookie = await login(call);
  const id = `mr_${"0".repeat(26)}`;
  const cases: [string, RequestInit & { headers: Record<string, string> }, number][] = [
    [
      "foreign origin",
      { method: "DELETE", headers: { cookie, origin: "http://evil.example" } },
      403,
    ],
    [
      "other local port",
      { method: "DELETE", headers: { cookie, origin: "http://127.0.0.1:1" } },
      403,
    ],
    ["no origin", { method: "DELETE", headers: { cookie } }, 403],
    ["same-site fetch", { headers: { cookie, "sec-fetch-site": "same-site" } }, 403],
    ["cross-site fetch", { headers: { cookie, "sec-fetch-site": "cross-site" } }, 403],
    ["dead cookie", { headers: { cookie: `kiro_learn_session_${PORT}=forged` } }, 401],
    ["other collector's cookie", { headers: { cookie: cookie.replace(String(PORT), "1") } }, 401],
  ];
  for (const [name, init, status] of cases) {
    const res = await call(`/v1/memories/${id}`, init);
    assert.equal(res.status, status, name);
    await res.body?.cancel();
  }
});

Deno.test("logout ends the session", async () => {
  const { call } = setup();
  const cookie = await login(call);
  const refused = await call("/ui/logout", { method: "POST", headers: { cookie } });
  assert.equal(refused.status, 403, "logout without Origin could be forced by another page");
  await refused.body?.cancel();
  const out = await call("/ui/logout", { method: "POST", headers: { cookie, origin: ORIGIN } });
  assert.equal(out.status, 303);
  assert.match(out.headers.get("set-cookie")!, /Max-Age=0/);
  const after = await call("/ui", { headers: { cookie } });
  assert.equal(after.status, 401);
  await after.body?.cancel();
});

Deno.test("viewer.close ends open feeds (a graceful shutdown would wait for them)", async () => {
  const { call, ctx, bus } = setup();
  const feed = await call("/v1/feed", { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(bus.size, 1);
  ctx.viewer!.close();
  assert.equal(bus.size, 0);
  assert.match(await feed.text(), /event: hello/);
});

Deno.test("static files: traversal and bad encodings never reach the file system", async () => {
  const { call } = setup();
  for (
    const [path, status] of [
      ["/ui/static/app.js", 200],
      ["/ui/static/..%2fmod.ts", 403],
      ["/ui/static/app.js%00", 400],
      ["/ui/static/%252e%252e/mod.ts", 400],
      ["/ui/static/nope.js", 404],
      // The URL parser already folds these dot segments, so they never reach the static handler
      // and land on the session-checked pages instead.
      ["/ui/static/%2e%2e/mod.ts", 401],
      ["/ui/static/../../server/app.ts", 404],
    ] as const
  ) {
    const res = await call(path);
    assert.equal(res.status, status, path);
    assert.ok(!(await res.text()).includes("createViewer"), path);
  }
});
