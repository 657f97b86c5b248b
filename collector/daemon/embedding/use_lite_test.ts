import assert from "node:assert/strict";
import { embeddingPermissions } from "../permissions/mod.ts";
import {
  createUseLiteEmbedder,
  USE_LITE_DIM,
  USE_LITE_MODEL_ID,
  useLiteInput,
} from "./use_lite.ts";
import { dot, norm } from "@kiro-learn/core/search";

Deno.test("use-lite: 512-d normalised vectors; paraphrases are closer than unrelated text", async () => {
  // `deno test` runs without --unstable-worker-options, so the Worker inherits (-A) here; the
  // sandboxed variant runs in a subprocess below.
  const embedder = await createUseLiteEmbedder({ sandbox: false });
  try {
    assert.equal(embedder.model_id, USE_LITE_MODEL_ID);
    assert.equal(embedder.dim, USE_LITE_DIM);
    const [a, b, c] = await embedder.embed([
      "The date parser rejected February 29 in leap years",
      "parsing fails for Feb 29th on leap years",
      "the docker build cache is invalidated by the lockfile",
    ]);
    for (const v of [a, b, c]) {
      assert.equal(v.length, 512);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    }
    assert.ok(dot(a, b) > dot(a, c) + 0.1, `${dot(a, b)} vs ${dot(a, c)}`);
    const [again] = await embedder.embed(["parsing fails for Feb 29th on leap years"]);
    assert.ok(dot(again, b) > 0.9999);
    // Newlines, tabs and runs of spaces are one space to the model (its tokeniser port marks
    // word starts at spaces only).
    const [spaced] = await embedder.embed(["  parsing fails\n\nfor Feb 29th\ton   leap years\n"]);
    assert.ok(dot(spaced, b) > 0.9999, `${dot(spaced, b)}`);
    assert.deepEqual(await embedder.embed([]), []);
  } finally {
    await embedder.close();
  }
  await assert.rejects(embedder.embed(["x"]), /closed/);
});

Deno.test("use-lite runs in a Worker that may read only the two packages' dist folders", async () => {
  const script = new URL("./testdata/use_lite_sandboxed.ts", import.meta.url).pathname;
  const testdata = new URL("./testdata/", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--unstable-worker-options",
      // The daemon's embedding read grant, plus this test's own scripts.
      `--allow-read=${[...embeddingPermissions("use-lite").read, testdata].join(",")}`,
      script,
    ],
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const report = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(report, {
    dim: 512,
    count: 2,
    probe: {
      read_core_dist: "allowed",
      read_model_dist: "allowed",
      read_outside: "denied",
      write: "denied",
      net: "denied",
      env: "denied",
      run: "denied",
      // Not granted ("prompt" under --no-prompt means any use is refused).
      ffi: "prompt",
    },
  });
});

Deno.test("useLiteInput collapses every kind of whitespace to one space", () => {
  assert.equal(useLiteInput("a\n\nb\tc  d\r\ne\u00a0f "), "a b c d e f");
  assert.equal(useLiteInput(" \n "), "");
});
