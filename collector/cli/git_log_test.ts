import assert from "node:assert/strict";
import { RECORD_ID_PATTERN } from "@kiro-learn/core/ids";
import { MemoryRecordSchema } from "@kiro-learn/core/schemas";
import { TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { commitRecord, commitType, gitLogArgs, parseGitLog, stripTrailers } from "./git_log.ts";

async function* chunks(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

const R = "\u001e", F = "\u001f";
const LOG = `${R}${"a".repeat(40)}${F}Ann${F}2026-01-02T03:04:05+01:00${F}netdev: fix crash${F}` +
  `Body line.\n\nSigned-off-by: Ann <a@x>\nFixes: 1234567 ("old")${F}\nlib/netdev.c\nlib/x.h\n` +
  `${R}${"b".repeat(40)}${F}Bob${F}2026-01-01T00:00:00Z${F}Revert "thing"${F}${F}\n`;

Deno.test("parseGitLog reads commits across any chunking", async () => {
  for (const size of [1, 7, 1000]) {
    const commits = [];
    for await (const c of parseGitLog(chunks(LOG, size))) commits.push(c);
    assert.equal(commits.length, 2, `chunk ${size}`);
    assert.equal(commits[0].subject, "netdev: fix crash");
    assert.deepEqual(commits[0].files, ["lib/netdev.c", "lib/x.h"]);
    assert.equal(commits[1].body, "");
  }
  assert.ok(gitLogArgs("/r", { since: "2026-01-01", max: 5 }).includes("--max-count=5"));
});

Deno.test("trailers go, types follow the subject, ids are derived and stable", async () => {
  assert.equal(stripTrailers("Why.\n\nSigned-off-by: A\nChange-Id: I12\nFixes: abc"), "Why.");
  assert.equal(commitType("netdev: fix crash on reload"), "error");
  assert.equal(commitType('Revert "x"'), "decision");
  assert.equal(commitType("lib: refactor the parser"), "pattern");
  assert.equal(commitType("ovsdb: add a column"), "discovery");
  const commits = [];
  for await (const c of parseGitLog(chunks(LOG, 100))) commits.push(c);
  const a = commitRecord(commits[0], { namespace: TEST_NAMESPACE, repository: "root1" });
  MemoryRecordSchema.parse(a);
  assert.match(a.record_id, RECORD_ID_PATTERN);
  assert.equal(a.summary, "Body line.");
  assert.equal(a.strategy, "git-commit");
  assert.match(a.facts[0], /^commit a{40} by Ann$/);
  assert.equal(a.created_at, "2026-01-02T02:04:05.000Z");
  assert.equal(
    commitRecord(commits[0], { namespace: TEST_NAMESPACE, repository: "root1" }).record_id,
    a.record_id,
  );
  assert.notEqual(
    commitRecord(commits[0], { namespace: TEST_NAMESPACE, repository: "root2" }).record_id,
    a.record_id,
  );
});

Deno.test("huge commits are capped with a marker and stay valid records", () => {
  const huge = commitRecord({
    sha: "c".repeat(40),
    author: "C",
    date: "2026-01-01T00:00:00Z",
    subject: "s".repeat(1000),
    body: "b".repeat(2_000_000),
    files: Array.from({ length: 5000 }, (_, i) => `f${i}.c`),
  }, { namespace: TEST_NAMESPACE, repository: "r" });
  MemoryRecordSchema.parse(huge);
  assert.match(huge.title, /\[truncated by kiro-learn\]$/);
  assert.match(huge.summary, /\[truncated by kiro-learn\]$/);
  assert.equal(huge.files_touched.length, 200);
  assert.match(huge.facts[1], /4800 more changed files/);
});
