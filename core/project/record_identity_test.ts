import assert from "node:assert/strict";
import { canonicalRecordId, commitRecordId } from "./record_identity.ts";
import { buildNamespace } from "./identity.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const PAY = "git-" + "1".repeat(64);
const NOTES = "git-" + "2".repeat(64);
const TIME = Date.parse("2026-03-01T10:00:00.000Z");

Deno.test("commitRecordId: one id per (project, sha), whatever the case of the sha", () => {
  const id = commitRecordId(PAY, { sha: SHA, time: TIME });
  assert.match(id, /^mr_[0-9A-Z]{26}$/);
  assert.equal(commitRecordId(PAY, { sha: SHA.toUpperCase(), time: TIME }), id);
  assert.notEqual(commitRecordId(NOTES, { sha: SHA, time: TIME }), id, "another project");
  assert.notEqual(
    commitRecordId(PAY, { sha: SHA.replace("0", "f"), time: TIME }),
    id,
    "another commit",
  );
});

Deno.test("canonicalRecordId: a commit record's id from its project and sha, never its actor", () => {
  const record = (actor: string, project: string, fact = `commit ${SHA} by Ada`) => ({
    record_id: "mr_01HZZZZZZZZZZZZZZZZZZZZZZZ",
    namespace: buildNamespace(actor, project),
    strategy: "git-commit",
    facts: [fact],
    created_at: new Date(TIME).toISOString(),
  });
  const expected = commitRecordId(PAY, { sha: SHA, time: TIME });
  assert.equal(canonicalRecordId(record("alice", PAY)), expected);
  assert.equal(canonicalRecordId(record("bob", PAY)), expected, "another user: the same item");
  assert.notEqual(canonicalRecordId(record("alice", NOTES)), expected);
  // Not a commit record, or one that names no commit: its own id stays.
  const own = { ...record("alice", PAY), strategy: "mcp_observation" };
  assert.equal(canonicalRecordId(own), own.record_id);
  const noSha = record("alice", PAY, "a fact that names no commit");
  assert.equal(canonicalRecordId(noSha), noSha.record_id);
});
