import assert from "node:assert/strict";
import { envGet } from "./env.ts";

Deno.test("an explicit map wins, including for unset keys", () => {
  assert.equal(envGet({ A: "1" }, "A"), "1");
  assert.equal(envGet({}, "HOME"), undefined);
});

Deno.test("without a map, the process environment is read", () => {
  Deno.env.set("KIRO_LEARN_ENV_TEST", "yes");
  try {
    assert.equal(envGet(undefined, "KIRO_LEARN_ENV_TEST"), "yes");
  } finally {
    Deno.env.delete("KIRO_LEARN_ENV_TEST");
  }
});
