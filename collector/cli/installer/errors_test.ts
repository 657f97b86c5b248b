import assert from "node:assert/strict";
import { InstallError } from "./errors.ts";

Deno.test("one problem reads as a sentence, several as a list; both say nothing changed", () => {
  const one = new InstallError("a.json is broken.");
  assert.equal(one.message, "a.json is broken.\nNothing was changed.");
  assert.deepEqual(one.problems, ["a.json is broken."]);
  const two = new InstallError(["a", "b"]);
  assert.equal(two.message, "2 problems:\n- a\n- b\nNothing was changed.");
  assert.equal(two.name, "InstallError");
  assert.ok(two instanceof Error);
});
