import assert from "node:assert/strict";
import {
  embedTerms,
  termCosine,
  termSpaceColumn,
  type TermSpaceDoc,
  termTokens,
  trainTermSpace,
} from "./term_space.ts";

// A symptom word ("crash") that appears next to its cause words ("null", "deref") in some
// records, records about the cause alone, an unrelated topic (docs, typo) and background noise.
function corpus(): TermSpaceDoc[] {
  const docs: TermSpaceDoc[] = [];
  for (let i = 0; i < 10; i++) {
    docs.push({
      title: `netdev: fix crash in port ${i % 3 === 0 ? "setup" : "teardown"}`,
      summary: "The crash came from a null deref of the port's queue.",
      files: ["lib/netdev.c"],
    });
    docs.push({
      title: "netdev: avoid null deref of queue",
      summary: "A null queue pointer was dereferenced when the port went away.",
      files: ["lib/netdev.c", "lib/netdev.h"],
    });
    docs.push({
      title: "docs: fix typo in the manual",
      summary: "Spelling in the install guide and the FAQ.",
      files: ["Documentation/faq.rst"],
    });
    // Background: word pairs seen in two records each, unrelated to both topics.
    for (const k of [0, 1]) {
      docs.push({ title: `tweak alpha${i}`, summary: `beta${i} gamma${i + k}`, files: [] });
    }
  }
  return docs;
}

const prompt = (text: string): TermSpaceDoc => ({ title: text, summary: "", files: [] });

Deno.test("termTokens: words and identifier parts, stemmed, no stop words or bare numbers", () => {
  assert.deepEqual(
    termTokens("Fix crashes in getUserById for the 2 ports of lib/netdev-dpdk.c"),
    ["fix", "crash", "getuserbyid", "port", "lib", "netdev", "dpdk", "get", "user", "id"],
  );
});

Deno.test("trainTermSpace: singular values descend and the term rows have the asked size", () => {
  const space = trainTermSpace(corpus(), { dims: 4 });
  assert.equal(space.dims, 4);
  assert.equal(space.vectors.length, space.columns.size * 4);
  for (let i = 1; i < space.singular.length; i++) {
    assert.ok(space.singular[i - 1] >= space.singular[i] - 1e-6);
  }
  assert.ok(space.singular[0] > 0);
});

Deno.test("trainTermSpace: the right singular vectors are orthonormal", () => {
  const space = trainTermSpace(corpus(), { dims: 3 });
  for (let a = 0; a < 3; a++) {
    for (let b = 0; b < 3; b++) {
      let dot = 0;
      for (let c = 0; c < space.columns.size; c++) {
        dot += space.vectors[c * 3 + a] * space.vectors[c * 3 + b];
      }
      assert.ok(Math.abs(dot - (a === b ? 1 : 0)) < 1e-4, `v${a}·v${b} = ${dot}`);
    }
  }
});

Deno.test("a symptom word lands near its cause words, far from an unrelated topic", () => {
  const space = trainTermSpace(corpus(), { dims: 2 });
  const crash = embedTerms(space, prompt("crash"));
  const cause = embedTerms(space, prompt("null deref"));
  const typo = embedTerms(space, prompt("typo manual"));
  assert.ok(termCosine(crash, cause) > 0.8, `crash~cause ${termCosine(crash, cause)}`);
  assert.ok(termCosine(crash, typo) < 0.2, `crash~typo ${termCosine(crash, typo)}`);
});

Deno.test("cross layout: a prompt's title terms reach a record's body terms", () => {
  const space = trainTermSpace(corpus(), { dims: 2, cross: true });
  const query = embedTerms(space, prompt("crash"), { side: "title" });
  const causeRecord = embedTerms(space, { title: "", summary: "null deref", files: [] });
  const docsRecord = embedTerms(space, { title: "", summary: "spelling guide", files: [] });
  assert.ok(termCosine(query, causeRecord) > termCosine(query, docsRecord) + 0.5);
});

Deno.test("embedTerms: unknown text has no vector and scores 0; training is deterministic", () => {
  const space = trainTermSpace(corpus(), { dims: 3, seed: 7 });
  assert.equal(embedTerms(space, prompt("completely unseen words")), null);
  assert.equal(termCosine(null, embedTerms(space, prompt("crash"))), 0);
  assert.deepEqual(trainTermSpace(corpus(), { dims: 3, seed: 7 }).vectors, space.vectors);
});

Deno.test("trainTermSpace: dims are capped by the matrix; power -1 changes the weighting only", () => {
  const space = trainTermSpace(corpus().slice(0, 3), { dims: 64, minDf: 1 });
  assert.ok(space.dims <= 3);
  const a = embedTerms(space, prompt("crash"), { power: 0 })!;
  const b = embedTerms(space, prompt("crash"), { power: -1 })!;
  for (let d = 0; d < space.dims; d++) {
    if (space.singular[d] > 1e-6) {
      assert.ok(Math.abs(b[d] - a[d] / space.singular[d]) < 1e-4);
    }
  }
});

Deno.test("embedTerms: excluded terms add nothing", () => {
  const space = trainTermSpace(corpus(), { dims: 3 });
  const both = embedTerms(space, prompt("crash typo"));
  const typo = embedTerms(space, prompt("typo"));
  const excluded = embedTerms(space, prompt("crash typo"), { exclude: new Set(["crash"]) });
  assert.ok(termCosine(both, typo) < 0.999);
  assert.ok(termCosine(excluded, typo) > 0.999);
  assert.equal(embedTerms(space, prompt("crash"), { exclude: new Set(["crash"]) }), null);
});

Deno.test("termSpaceColumn: 1 for the closest candidate, less for others, 0 without a vector", () => {
  const space = trainTermSpace(corpus(), { dims: 2 });
  const records = [
    embedTerms(space, { title: "docs: fix typo", summary: "spelling", files: [] }),
    embedTerms(space, { title: "netdev: null deref", summary: "queue", files: [] }),
    null,
  ];
  const column = termSpaceColumn("crash in teardown", { space, records });
  assert.equal(column[1], 1);
  assert.ok(column[0] < 0.5);
  assert.equal(column[2], 0);
  const raw = termSpaceColumn("crash in teardown", { space, records, relative: false });
  assert.ok(raw[1] <= 1 && raw[1] > 0.8);
});
