import assert from "node:assert/strict";
import {
  choiceOption,
  type CommandArgs,
  flag,
  invocationDir,
  stringOption,
  UsageError,
} from "./_command.ts";

const args = (values: Record<string, unknown>): CommandArgs => ({ positionals: [], values });

Deno.test("stringOption and flag read only values of their type", () => {
  assert.equal(stringOption(args({ name: "x" }), "name"), "x");
  assert.equal(stringOption(args({ name: true }), "name"), undefined);
  assert.equal(stringOption(args({}), "name"), undefined);
  assert.equal(flag(args({ json: true }), "json"), true);
  assert.equal(flag(args({ json: "true" }), "json"), false);
});

Deno.test("choiceOption accepts an allowed value and names every choice otherwise", () => {
  const allowed = ["v2", "v3", "auto"] as const;
  assert.equal(choiceOption(args({ f: "v3" }), "f", { allowed }), "v3");
  assert.equal(choiceOption(args({}), "f", { allowed }), undefined);
  assert.throws(
    () => choiceOption(args({ f: "v9" }), "f", { allowed }),
    (e) => e instanceof UsageError && e.message === "--f must be v2, v3 or auto",
  );
});

Deno.test("invocationDir: INIT_CWD only when deno task put us in the checkout", () => {
  const checkout = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
  assert.equal(invocationDir({ cwd: checkout, initCwd: "/home/me/shop-api" }), "/home/me/shop-api");
  assert.equal(invocationDir({ cwd: "/home/me/app", initCwd: "/stale" }), "/home/me/app");
  assert.equal(invocationDir({ cwd: checkout, initCwd: "" }), checkout);
});
