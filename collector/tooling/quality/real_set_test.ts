// The as-of replay of the real set: which records each prompt meets.
import assert from "node:assert/strict";
import { makeRecord } from "@kiro-learn/core/testing";
import { asOfSteps } from "./real_set.ts";

Deno.test("as of each fix: a query meets every record made by its fix and none made after", () => {
  const ns = (n: string) => `/actor/eval/project/${n.repeat(64)}/`;
  const rec = (id: string, namespace: string, created_at: string) =>
    makeRecord({ record_id: id, namespace, created_at });
  const records = [
    rec("a1", ns("a"), "2024-01-01T00:00:00Z"),
    rec("a2", ns("a"), "2024-02-01T00:00:00Z"),
    rec("a3", ns("a"), "2024-03-01T00:00:00Z"),
    rec("b1", ns("b"), "2024-01-15T00:00:00Z"),
  ];
  const q = (
    id: string,
    namespace: string,
    repo: string,
    fixed_at: string,
    relevant: string[],
  ) => ({
    query_id: id,
    query: "fix it",
    namespace,
    relevant,
    repo,
    fixed_at,
  });
  const steps = [...asOfSteps(records, [
    // Its answer dated after the fix (none on the set is) is saved with it all the same.
    q("q2", ns("a"), "x/a", "2024-02-15T00:00:00Z", ["a3"]),
    q("q1", ns("a"), "x/a", "2024-01-01T00:00:00Z", ["a1"]),
    q("q3", ns("b"), "w/b", "2024-06-01T00:00:00Z", ["b1"]),
  ])];
  // Repositories by name (w/b first), queries in time order, each batch only what is new.
  assert.deepEqual(
    steps.map((s) => [s.query.query_id, s.batch.map((r) => r.record_id), s.pool]),
    [["q3", ["b1"], 1], ["q1", ["a1"], 1], ["q2", ["a2", "a3"], 3]],
  );
  assert.throws(
    () => [...asOfSteps(records, [{ ...q("q4", ns("a"), "x/a", "", []), fixed_at: undefined }])],
    /q4 has no fixed_at/,
  );
});
