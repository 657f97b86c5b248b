// The secret corpus (157 realistic secrets of 59 kinds, `testdata/secrets_corpus.json`) through the
// scrubber: no secret may survive. The end-to-end leak test (every entry point, every byte of the
// data dir) is `collector/tooling/testing/secret_leak_test.ts`.
import assert from "node:assert/strict";
import corpus from "./testdata/secrets_corpus.json" with { type: "json" };
import { scrubText } from "./mod.ts";

Deno.test("every secret of the corpus is redacted, and redaction is idempotent", () => {
  const leaks: string[] = [];
  for (const entry of corpus) {
    const out = scrubText(entry.text);
    if (out.includes(entry.secret)) leaks.push(`${entry.kind}: ${out}`);
    assert.equal(scrubText(out), out, `not idempotent: ${entry.kind}`);
  }
  assert.deepEqual(leaks, []);
  assert.ok(corpus.length >= 150);
  assert.ok(new Set(corpus.map((e) => e.kind)).size >= 40);
});
