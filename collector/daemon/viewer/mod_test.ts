// The viewer's routes, in process, mounted the way the server mounts them (`/v1` and `/ui`). The
// server's own part, accepting `viewer.checkSession` in place of the bearer on `/v1`, is
// exercised by e2e_test.ts against the real daemon.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { EventBus } from "../runtime/mod.ts";
import { createViewer, SESSION_KEY } from "./mod.ts";

const PORT = 47_123;
const ORIGIN = `http://127.0.0.1:${PORT}`;
const TOKEN = "t".repeat(64);

function setup() {
  const bus = new EventBus();
  const viewer = createViewer(
    { settings: { collector: { port: PORT } }, token: TOKEN, bus },
    { origins: new Set([ORIGIN]) },
  );
  const app = new Hono();
  app.route("/v1", viewer.api);
  app.route("/ui", viewer.pages);
  const call = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    app.fetch(
      new Request(ORIGIN + path, {
        ...init,
        headers: { host: `127.0.0.1:${PORT}`, ...init.headers },
      }),
    );
  return { viewer, bus, call };
}

async function login(call: ReturnType<typeof setup>["call"]): Promise<string> {
  return (await loginWithKey(call)).cookie;
}

/** Logs in as the login page does; returns the cookie and the session key its answer carries. */
async function loginWithKey(
  call: ReturnType<typeof setup>["call"],
): Promise<{ cookie: string; key: string }> {
  const res = await call("/v1/ui/codes", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(res.status, 201);
  const body = await res.json();
  assert.match(body.code, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(body.expires_in_s, 60);
  // The code is in the fragment: no server, log or Referer ever sees it.
  assert.equal(body.path, `/ui/login#${SESSION_KEY.code}=${body.code}`);
  const answer = await postCode(call, body.code);
  assert.equal(answer.status, 200);
  const { session_key: key } = await answer.json();
  assert.match(key, /^[A-Za-z0-9_-]{43}$/);
  const cookie = answer.headers.get("set-cookie")!;
  assert.match(
    cookie,
    new RegExp(`^kiro_learn_session_${PORT}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`),
  );
  assert.ok(!cookie.includes(key), "the key is not the cookie");
  assert.equal(answer.headers.get("cache-control"), "no-store");
  return { cookie: cookie.split(";")[0], key };
}

/** The login page's post of `code`, from the viewer's origin. */
function postCode(
  call: ReturnType<typeof setup>["call"],
  code: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(call("/ui/login", {
    method: "POST",
    headers: {
      origin: ORIGIN,
      "sec-fetch-site": "same-origin",
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify({ code }),
  }));
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
  for (const path of ["/ui/static/app.css", "/ui/static/js/app.js", "/ui/static/js/enums.js"]) {
    const asset = await call(path);
    assert.equal(asset.status, 200, `${path}: assets carry no data and load without a session`);
    await asset.body?.cancel();
  }
  const enums = await call("/ui/static/js/enums.js");
  assert.equal(enums.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.match(await enums.text(), /export const OBSERVATION_TYPES = /);
});

Deno.test("the one-time link grants a session that the UI and /v1 accept", async () => {
  const { call, viewer } = setup();
  const { cookie, key } = await loginWithKey(call);
  const fromViewer = { cookie, "sec-fetch-site": "same-origin", [SESSION_KEY.header]: key };
  const status = (path: string, headers: Record<string, string>) => {
    const checked = viewer.checkSession(new Request(`${ORIGIN}${path}`, { headers }));
    return checked instanceof Response ? checked.status : checked;
  };
  assert.equal(status("/v1/stats", fromViewer), "ok");
  assert.equal(status("/v1/stats", {}), "absent");
  // The cookie alone (replayed by whoever received it on another port) opens nothing.
  assert.equal(status("/v1/stats", { cookie }), 403);
  assert.equal(status("/v1/stats", { cookie, [SESSION_KEY.header]: "x".repeat(43) }), 403);
  assert.equal(status("/v1/feed", { cookie }), 403);
  // EventSource cannot send headers: the feed, and only the feed, takes the key in its query.
  assert.equal(status(`/v1/feed?${SESSION_KEY.query}=${key}`, { cookie }), "ok");
  assert.equal(status(`/v1/stats?${SESSION_KEY.query}=${key}`, { cookie }), 403);
  const page = await call("/ui/memories", { headers: { cookie } });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /data-page="memories"/);
  const detail = await call(`/ui/memories/mr_${"0".repeat(26)}`, { headers: { cookie } });
  assert.match(await detail.text(), /data-record-id="mr_0{26}"/);
  const missing = await call("/ui/nope", { headers: { cookie } });
  assert.equal(missing.status, 404);
  await missing.body?.cancel();

  const feed = await call("/v1/feed", { headers: fromViewer });
  assert.equal(feed.status, 200);
  assert.equal(feed.headers.get("content-type"), "text/event-stream; charset=utf-8");
  await feed.body?.cancel();
});

Deno.test("a code works once, only from the login page; the page itself holds nothing", async () => {
  const { call } = setup();
  const mint = async () =>
    (await (await call("/v1/ui/codes", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
    })).json()).code as string;
  const code = await mint();
  // From anywhere but the viewer's own origin the code is not spent.
  for (
    const headers of [
      { origin: "null" },
      { origin: "http://127.0.0.1:1" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ] as Record<string, string>[]
  ) {
    const refused = await postCode(call, code, headers);
    assert.equal(refused.status, 403, JSON.stringify(headers));
    await refused.body?.cancel();
  }
  const withoutOrigin = await call("/ui/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code }),
  });
  assert.equal(withoutOrigin.status, 403);
  await withoutOrigin.body?.cancel();
  assert.equal((await postCode(call, code)).status, 200);
  const again = await postCode(call, code);
  assert.equal(again.status, 403);
  assert.match((await again.json()).error, /expired or was already used/);
  const bogus = await postCode(call, "guess");
  assert.equal(bogus.status, 403);
  await bogus.body?.cancel();
  const malformed = await call("/ui/login", {
    method: "POST",
    headers: { origin: ORIGIN, "content-type": "application/json" },
    body: JSON.stringify({ code: 7 }),
  });
  assert.equal(malformed.status, 400);
  await malformed.body?.cancel();
  // A code in the query is never spent: the page is the same for everyone.
  const unspent = await mint();
  const page = await call(`/ui/login?code=${unspent}`);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /data-testid="login"/);
  assert.match(html, /\/ui\/static\/js\/login\.js/);
  assert.ok(!html.includes(unspent));
  assert.equal(page.headers.get("cross-origin-opener-policy"), "noopener-allow-popups");
  assert.equal((await postCode(call, unspent)).status, 200);
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
  const { call, viewer, bus } = setup();
  const feed = await call("/v1/feed", { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(bus.size, 1);
  viewer.close();
  assert.equal(bus.size, 0);
  assert.match(await feed.text(), /event: hello/);
});

Deno.test("static files: traversal and bad encodings never reach the file system", async () => {
  const { call } = setup();
  for (
    const [path, status] of [
      ["/ui/static/js/app.js", 200],
      ["/ui/static/js/pages/graph.js", 200],
      ["/ui/static/..%2fmod.ts", 403],
      ["/ui/static/js/..%2f..%2fmod.ts", 403],
      ["/ui/static/js/app.js%00", 400],
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
