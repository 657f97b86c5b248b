import assert from "node:assert/strict";
import { RECORD_ID_PATTERN } from "@kiro-learn/core/ids";
import { MemoryRecordSchema } from "@kiro-learn/core/schemas";
import { TEST_NAMESPACE } from "@kiro-learn/core/testing";
import {
  commitMarker,
  commitRecord,
  commitType,
  gitLogArgs,
  parseGitLog,
  stripTrailers,
} from "./git_log.ts";

async function* chunks(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

const M = commitMarker();
// What `git log -z --name-only` with gitLogArgs' format prints (see the real-git tests).
const LOG = `${M}\0${"a".repeat(40)}\0Ann\x002026-01-02T03:04:05+01:00\0netdev: fix crash\0` +
  `Body line.\n\nSigned-off-by: Ann <a@x>\nFixes: 1234567 ("old")\n\0\0\nlib/netdev.c\0lib/x.h\0` +
  `${M}\0${"b".repeat(40)}\0Bob\x002026-01-01T00:00:00Z\0Revert "thing"\0\0`;

Deno.test("parseGitLog reads commits across any chunking", async () => {
  for (const size of [1, 7, 1000]) {
    const commits = [];
    for await (const c of parseGitLog(chunks(LOG, size), { marker: M })) commits.push(c);
    assert.equal(commits.length, 2, `chunk ${size}`);
    assert.equal(commits[0].subject, "netdev: fix crash");
    assert.deepEqual(commits[0].files, ["lib/netdev.c", "lib/x.h"]);
    assert.equal(commits[1].body, "");
  }
  assert.ok(
    gitLogArgs("/r", { since: "2026-01-01", max: 5, marker: M }).includes("--max-count=5"),
  );
});

Deno.test("trailers go, types follow the subject, ids are derived and stable", async () => {
  assert.equal(stripTrailers("Why.\n\nSigned-off-by: A\nChange-Id: I12\nFixes: abc"), "Why.");
  assert.equal(commitType("netdev: fix crash on reload"), "error");
  assert.equal(commitType('Revert "x"'), "decision");
  assert.equal(commitType("lib: refactor the parser"), "pattern");
  assert.equal(commitType("ovsdb: add a column"), "discovery");
  const commits = [];
  for await (const c of parseGitLog(chunks(LOG, 100), { marker: M })) commits.push(c);
  const a = commitRecord(commits[0], { namespace: TEST_NAMESPACE });
  MemoryRecordSchema.parse(a);
  assert.match(a.record_id, RECORD_ID_PATTERN);
  assert.equal(a.summary, "Body line.");
  assert.equal(a.strategy, "git-commit");
  assert.match(a.facts[0], /^commit a{40} by Ann$/);
  assert.equal(a.created_at, "2026-01-02T02:04:05.000Z");
  assert.equal(commitRecord(commits[0], { namespace: TEST_NAMESPACE }).record_id, a.record_id);
  // Another project: another id; another user of the same project: the same.
  const other = TEST_NAMESPACE.replace(/project\/[^/]+\//, `project/${"1".repeat(64)}/`);
  assert.notEqual(commitRecord(commits[0], { namespace: other }).record_id, a.record_id);
  const bob = TEST_NAMESPACE.replace(/actor\/[^/]+\//, "actor/bob/");
  assert.equal(commitRecord(commits[0], { namespace: bob }).record_id, a.record_id);
});

Deno.test("huge commits are capped with a marker and stay valid records", () => {
  const huge = commitRecord({
    sha: "c".repeat(40),
    author: "C",
    date: "2026-01-01T00:00:00Z",
    subject: "s".repeat(1000),
    body: "b".repeat(2_000_000),
    files: Array.from({ length: 5000 }, (_, i) => `f${i}.c`),
  }, { namespace: TEST_NAMESPACE });
  MemoryRecordSchema.parse(huge);
  assert.match(huge.title, /\[truncated by kiro-learn\]$/);
  assert.match(huge.summary, /\[truncated by kiro-learn\]$/);
  assert.equal(huge.files_touched.length, 200);
  assert.match(huge.facts[1], /4800 more changed files/);
});
