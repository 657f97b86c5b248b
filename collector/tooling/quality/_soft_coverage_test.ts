import assert from "node:assert/strict";
import { type TermSpaceDoc, trainTermSpace } from "@kiro-learn/core/search";
import { softCoverage } from "./_soft_coverage.ts";

function corpus(): TermSpaceDoc[] {
  const docs: TermSpaceDoc[] = [];
  for (let i = 0; i < 12; i++) {
    docs.push({ title: "netdev crash on teardown", summary: "segfault in queue", files: [] });
    docs.push({ title: "docs typo", summary: "spelling guide", files: [] });
    docs.push({ title: `tweak alpha${i}`, summary: `beta${i}`, files: [] });
  }
  return docs;
}

Deno.test("softCoverage: a shared word counts fully, unless skipExact leaves shared words out", () => {
  const space = trainTermSpace(corpus(), { dims: 4 });
  const doc = { title: "netdev crash", summary: "", files: [] };
  assert.equal(softCoverage(space, "crash", { doc }), 1);
  assert.equal(softCoverage(space, "crash", { doc, skipExact: true }), 0);
  assert.equal(softCoverage(space, "unknownword", { doc }), 0, "no known term: nothing to cover");
});

Deno.test("softCoverage: a word that keeps company with the record's words covers more than one that does not", () => {
  const space = trainTermSpace(corpus(), { dims: 4 });
  const doc = { title: "segfault", summary: "", files: [] };
  const related = softCoverage(space, "teardown", { doc });
  const unrelated = softCoverage(space, "spelling", { doc });
  assert.ok(related > unrelated, `${related} <= ${unrelated}`);
});
