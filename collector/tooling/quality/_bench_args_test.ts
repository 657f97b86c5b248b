import assert from "node:assert/strict";
import { countArg } from "./_bench_args.ts";

Deno.test("countArg: a whole number of at least 1, else a message naming the argument", () => {
  assert.equal(countArg("--records=12", "--records="), 12);
  for (const bad of ["--records=0", "--records=1.5", "--records=x", "--records="]) {
    assert.throws(() => countArg(bad, "--records="), {
      message: `${bad}: records must be a whole number of at least 1`,
    });
  }
});
