import assert from "node:assert/strict";
import { checkSession, type SessionAccess, sessionOf } from "./auth.ts";
import { SESSION_KEY, sessionCookieName, SessionStore } from "./sessions.ts";

const PORT = 47_123;
const ORIGIN = `http://127.0.0.1:${PORT}`;

function setup() {
  const sessions = new SessionStore();
  const session = sessions.redeem(sessions.createCode().code)!;
  const access: SessionAccess = { sessions, port: PORT, origins: new Set([ORIGIN]) };
  const cookie = `${sessionCookieName(PORT)}=${session}`;
  const check = (init: RequestInit & { headers?: Record<string, string> } = {}) =>
    checkSession(new Request(`${ORIGIN}/v1/memories/x`, init), access);
  return { sessions, session, cookie, check };
}

/** The status of a refusal, or the check's verdict. */
function outcome(result: ReturnType<typeof checkSession>): number | string {
  return result instanceof Response ? result.status : result;
}

Deno.test("a live session from the viewer's own pages is accepted, reads and changes", () => {
  const { cookie, check } = setup();
  assert.equal(check({ headers: { cookie } }), "ok", "curl-like: no Sec-Fetch-Site");
  assert.equal(check({ headers: { cookie, "sec-fetch-site": "same-origin" } }), "ok");
  assert.equal(check({ headers: { cookie, "sec-fetch-site": "none" } }), "ok", "typed URL");
  assert.equal(check({ method: "DELETE", headers: { cookie, origin: ORIGIN } }), "ok");
});

Deno.test("a session is refused cross-site and, for changes, without our Origin", () => {
  const { cookie, check } = setup();
  const cases: [string, RequestInit & { headers: Record<string, string> }, number | string][] = [
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
    // The server answers an absent session with its own 401 (the bearer's refusal).
    ["dead cookie", { headers: { cookie: `${sessionCookieName(PORT)}=forged` } }, "absent"],
    [
      "other collector's cookie",
      { headers: { cookie: cookie.replace(String(PORT), "1") } },
      "absent",
    ],
    ["no cookie", { headers: {} }, "absent"],
  ];
  for (const [name, init, expected] of cases) {
    assert.equal(outcome(check(init)), expected, name);
  }
});

Deno.test("on /v1 a cookie alone is refused: the session's key must come with it", () => {
  const { sessions, session, cookie } = setup();
  const key = sessions.keyOf(session)!;
  assert.match(key, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(key, session);
  const access: SessionAccess = { sessions, port: PORT, origins: new Set([ORIGIN]) };
  const api = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    outcome(
      checkSession(new Request(`${ORIGIN}${path}`, init), access, {
        requireKey: true,
        keyInQueryPath: "/v1/feed",
      }),
    );
  assert.equal(api("/v1/stats", { headers: { cookie } }), 403, "replayed cookie");
  assert.equal(api("/v1/stats", { headers: { cookie, [SESSION_KEY.header]: "" } }), 403);
  assert.equal(api("/v1/stats", { headers: { cookie, [SESSION_KEY.header]: session } }), 403);
  assert.equal(api("/v1/stats", { headers: { cookie, [SESSION_KEY.header]: key } }), "ok");
  assert.equal(
    api("/v1/memories/x", {
      method: "DELETE",
      headers: { cookie, origin: ORIGIN, [SESSION_KEY.header]: key },
    }),
    "ok",
  );
  assert.equal(api(`/v1/feed?${SESSION_KEY.query}=${key}`, { headers: { cookie } }), "ok");
  assert.equal(api(`/v1/stats?${SESSION_KEY.query}=${key}`, { headers: { cookie } }), 403);
  assert.equal(api("/v1/stats", { headers: { [SESSION_KEY.header]: key } }), "absent");
  // Another session's key does not fit this cookie.
  const other = sessions.redeem(sessions.createCode().code)!;
  assert.equal(
    api("/v1/stats", { headers: { cookie, [SESSION_KEY.header]: sessions.keyOf(other)! } }),
    403,
  );
  // Pages (empty shells) need only the cookie.
  assert.equal(
    outcome(checkSession(new Request(`${ORIGIN}/ui`, { headers: { cookie } }), access)),
    "ok",
  );
});

Deno.test("a revoked session is absent; sessionOf still names it (for logout)", () => {
  const { sessions, session, cookie, check } = setup();
  sessions.revoke(session);
  assert.equal(check({ headers: { cookie } }), "absent");
  const request = new Request(ORIGIN, { headers: { cookie } });
  assert.equal(sessionOf(request, PORT), session);
  assert.equal(sessionOf(request, 1), null);
});
