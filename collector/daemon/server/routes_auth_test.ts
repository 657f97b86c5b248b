// Every /v1 route refuses a request without the right bearer token, on the real daemon.
import assert from "node:assert/strict";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  badCredentials,
  postJson,
  routeRequest,
  startTestDaemon,
  V1_ROUTES,
  viewerLogin,
} from "../../tooling/testing/mod.ts";
import { SESSION_KEY } from "../viewer/mod.ts";

Deno.test("the table covers every /v1 route and method app.ts declares", async () => {
  const source = await Deno.readTextFile(new URL("./app.ts", import.meta.url));
  const block = /const ALLOWED_METHODS[^{]*\{([^}]*)\}/.exec(source)?.[1];
  assert.ok(block, "ALLOWED_METHODS not found in app.ts");
  const declared = [...block.matchAll(/"(\/v1\/[^"]+)":\s*\[([^\]]*)\]/g)].flatMap((
    [, route, methods],
  ) => [...methods.matchAll(/"([A-Z]+)"/g)].map(([, method]) => `${method} ${route}`));
  assert.ok(declared.length >= 14, `only ${declared.length} routes parsed`);
  const tested = V1_ROUTES.map((r) => `${r.method} ${r.route}`);
  assert.deepEqual([...tested].sort(), [...declared].sort());
});

Deno.test("every /v1 route answers 401 without the right token, and changes nothing", async (t) => {
  await using daemon = await startTestDaemon();
  // A real record, so the :id routes would find something if they let the request through.
  const record = makeRecord({ title: "the record intruders aim at" });
  const saved = await postJson(daemon, "/v1/memories", record);
  assert.equal(saved.status, 200);
  await saved.body?.cancel();
  const before = {
    events: (await (await daemon.fetch("/v1/events?limit=200")).json()).items.length,
    memories: await (await daemon.fetch("/v1/memories?limit=500")).json(),
  };

  for (const route of V1_ROUTES) {
    await t.step(`${route.method} ${route.route}`, async () => {
      for (const [what, headers] of badCredentials(daemon)) {
        const res = await routeRequest(daemon, route, { id: record.record_id, headers });
        const text = await res.text();
        assert.equal(res.status, 401, `${what}: ${res.status} ${text}`);
        assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /, what);
        assert.equal(JSON.parse(text).error, "unauthorized", what);
      }
    });
  }

  await t.step("nothing was stored, edited or deleted", async () => {
    const events = (await (await daemon.fetch("/v1/events?limit=200")).json()).items.length;
    assert.equal(events, before.events);
    assert.deepEqual(await (await daemon.fetch("/v1/memories?limit=500")).json(), before.memories);
    const got = await (await daemon.fetch(`/v1/memories/${record.record_id}`)).json();
    assert.equal(got.record.title, "the record intruders aim at");
  });

  // The same requests with the token get through: the 401s above came from the missing token,
  // not from a route that does not exist or a request that was wrong in some other way.
  await t.step("with the token, every route is reached", async () => {
    for (const route of V1_ROUTES) {
      const res = await routeRequest(daemon, route, {
        id: record.record_id,
        headers: { authorization: `Bearer ${daemon.token}` },
      });
      await res.body?.cancel();
      assert.ok(
        res.status >= 200 && res.status < 300,
        `${route.method} ${route.route} with the token: ${res.status}`,
      );
    }
  });
});

Deno.test("a live viewer cookie replayed alone opens no /v1 route, the feed included", async (t) => {
  await using daemon = await startTestDaemon();
  const record = makeRecord({ title: "the record a replayed cookie aims at" });
  const saved = await postJson(daemon, "/v1/memories", record);
  await saved.body?.cancel();
  const { cookie, key } = await viewerLogin(daemon);
  // What another local server receives from the browser, replayed with a forged Origin.
  const replay = { cookie, origin: daemon.url };

  await t.step("the cookie alone: 403 on every route", async () => {
    for (const route of V1_ROUTES) {
      const res = await routeRequest(daemon, route, { id: record.record_id, headers: replay });
      const text = await res.text();
      assert.equal(res.status, 403, `${route.method} ${route.route}: ${res.status} ${text}`);
      assert.match(JSON.parse(text).details, /kiro-learn open/);
    }
    const feed = await fetch(`${daemon.url}/v1/feed?${SESSION_KEY.query}=wrong`, {
      headers: { cookie },
    });
    assert.equal(feed.status, 403);
    await feed.body?.cancel();
    const got = await (await daemon.fetch(`/v1/memories/${record.record_id}`)).json();
    assert.equal(got.record.title, record.title, "nothing was changed");
  });

  await t.step(
    "the cookie with the session's key reaches every route a session may use",
    async () => {
      for (const route of V1_ROUTES) {
        const res = await routeRequest(daemon, route, {
          id: record.record_id,
          headers: { ...replay, [SESSION_KEY.header]: key },
        });
        await res.body?.cancel();
        // Minting codes takes the bearer token: a session must not extend itself. Nor may it
        // read the token from the MCP headers helper's route.
        const bearerOnly = ["/v1/ui/codes", "/v1/mcp/headers"];
        const expected = bearerOnly.includes(route.route) ? 401 : 200;
        assert.equal(res.status, expected, `${route.method} ${route.route}`);
      }
      const feed = await fetch(`${daemon.url}/v1/feed?${SESSION_KEY.query}=${key}`, {
        headers: { cookie },
      });
      assert.equal(feed.status, 200);
      await feed.body?.cancel();
    },
  );
});
