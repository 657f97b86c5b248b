import assert from "node:assert/strict";
import fc from "fast-check";
import {
  clearedSessionCookie,
  CODE_TTL_MS,
  MAX_CODES,
  MAX_SESSIONS,
  randomToken,
  readCookie,
  SESSION_IDLE_MS,
  sessionCookie,
  sessionCookieName,
  SessionStore,
} from "./sessions.ts";

function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

Deno.test("a code works once, then never again", () => {
  const store = new SessionStore();
  const { code } = store.createCode();
  const session = store.redeem(code);
  assert.ok(session);
  assert.equal(store.redeem(code), null);
  assert.ok(store.touch(session));
});

Deno.test("a code expires after 60 s, and presenting it late also burns it", () => {
  const clock = fakeClock();
  const store = new SessionStore({ now: clock.now });
  const early = store.createCode();
  const late = store.createCode();
  assert.equal(Date.parse(early.expires_at), clock.now() + CODE_TTL_MS);
  clock.advance(CODE_TTL_MS - 1);
  assert.ok(store.redeem(early.code));
  clock.advance(1);
  assert.equal(store.redeem(late.code), null);
  assert.equal(store.size.codes, 0);
});

Deno.test("unknown codes and sessions are refused", () => {
  const store = new SessionStore();
  assert.equal(store.redeem(""), null);
  assert.equal(store.redeem("nope"), null);
  assert.equal(store.touch(""), false);
  assert.equal(store.touch(randomToken()), false);
});

Deno.test("a session ends after 12 h idle; use keeps it alive; revoke ends it", () => {
  const clock = fakeClock();
  const store = new SessionStore({ now: clock.now });
  const a = store.redeem(store.createCode().code)!;
  const b = store.redeem(store.createCode().code)!;
  clock.advance(SESSION_IDLE_MS - 1);
  assert.ok(store.touch(a));
  clock.advance(SESSION_IDLE_MS - 1);
  assert.ok(store.touch(a), "use restarted the idle clock");
  assert.equal(store.touch(b), false, "b was idle too long");
  assert.equal(store.touch(b), false);
  store.revoke(a);
  assert.equal(store.touch(a), false);
  assert.equal(store.size.sessions, 0);
});

Deno.test("outstanding codes and sessions are capped, oldest / least recently used first", () => {
  const store = new SessionStore();
  const codes = Array.from({ length: MAX_CODES + 5 }, () => store.createCode().code);
  assert.equal(store.size.codes, MAX_CODES);
  assert.equal(store.redeem(codes[0]), null, "the oldest code was dropped");
  assert.ok(store.redeem(codes.at(-1)!));
  const sessions: string[] = [];
  for (let i = 0; i < MAX_SESSIONS; i++) sessions.push(store.redeem(store.createCode().code)!);
  assert.ok(store.touch(sessions[1]), "recently used: survives eviction");
  store.redeem(store.createCode().code);
  store.redeem(store.createCode().code);
  assert.equal(store.size.sessions, MAX_SESSIONS);
  assert.ok(store.touch(sessions[1]));
  assert.equal(store.touch(sessions[2]), false, "least recently used was evicted");
});

Deno.test("tokens are 256-bit base64url and do not repeat", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const token = randomToken();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    seen.add(token);
  }
  assert.equal(seen.size, 1000);
});

Deno.test("the cookie is HttpOnly, SameSite=Strict, Path=/, and named after the port", () => {
  assert.equal(sessionCookieName(21100), "kiro_learn_session_21100");
  const cookie = sessionCookie(21100, "abc");
  assert.match(cookie, /^kiro_learn_session_21100=abc; /);
  for (const attribute of ["HttpOnly", "SameSite=Strict", "Path=/"]) {
    assert.ok(cookie.split("; ").includes(attribute), attribute);
  }
  assert.match(clearedSessionCookie(21100), /Max-Age=0/);
});

Deno.test("readCookie finds its cookie among others and ignores look-alikes", () => {
  const name = sessionCookieName(9);
  assert.equal(readCookie(null, name), null);
  assert.equal(readCookie(`a=1; ${name}=xyz; b=2`, name), "xyz");
  assert.equal(readCookie(`x${name}=evil; ${name}x=evil`, name), null);
  assert.equal(readCookie("garbage", name), null);
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.stringMatching(/^[a-z_]{1,12}$/), fc.stringMatching(/^[A-Za-z0-9_-]{0,20}$/)),
      ),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,43}$/),
      (others, value) => {
        const filtered = others.filter(([k]) => k !== name);
        const parts = [...filtered.map(([k, v]) => `${k}=${v}`), `${name}=${value}`];
        assert.equal(readCookie(parts.reverse().join("; "), name), value);
      },
    ),
  );
});
