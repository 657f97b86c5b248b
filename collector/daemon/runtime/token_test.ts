import assert from "node:assert/strict";
import { readToken } from "@kiro-learn/core/api/wire";
import { ensureToken, timingSafeEqual } from "./token.ts";

Deno.test("ensureToken creates a 0600 random token once and returns the same one after", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/token`;
  assert.equal(readToken(path), null);
  const token = ensureToken(path);
  assert.match(token, /^[0-9a-f]{64}$/);
  assert.equal(ensureToken(path), token);
  assert.equal(readToken(path), token);
  if (Deno.build.os !== "windows") assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("timingSafeEqual compares whole strings of any length", () => {
  assert.ok(timingSafeEqual("abc", "abc"));
  assert.ok(!timingSafeEqual("abc", "abd"));
  assert.ok(!timingSafeEqual("abc", "abcd"));
  assert.ok(!timingSafeEqual("", "a"));
});
