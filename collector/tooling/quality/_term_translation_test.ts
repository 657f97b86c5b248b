import assert from "node:assert/strict";
import type { TermSpaceDoc } from "@kiro-learn/core/search";
import { trainTermTranslation, translationScore } from "./_term_translation.ts";

function corpus(): TermSpaceDoc[] {
  const docs: TermSpaceDoc[] = [];
  for (let i = 0; i < 10; i++) {
    docs.push({
      title: "netdev: fix crash on teardown",
      summary: "A null deref of the queue.",
      files: ["lib/netdev.c"],
    });
    docs.push({
      title: "docs: fix typo",
      summary: "Spelling in the guide.",
      files: ["Documentation/faq.rst"],
    });
    for (const k of [0, 1, 2]) {
      docs.push({ title: `tweak alpha${i}`, summary: `beta${i + k}`, files: [] });
    }
  }
  return docs;
}

Deno.test("trainTermTranslation: a title term is associated with its records' body terms", () => {
  const model = trainTermTranslation(corpus());
  const crash = model.table.get("crash");
  assert.ok(crash !== undefined);
  assert.ok((crash.get("null") ?? 0) > 0);
  assert.ok((crash.get("deref") ?? 0) > 0);
  assert.equal(crash.get("spelling"), undefined);
});

Deno.test("translationScore: a prompt scores higher on the record its words translate into", () => {
  const model = trainTermTranslation(corpus());
  const cause = { title: "queue handling", summary: "null deref", files: [] };
  const other = { title: "queue handling", summary: "spelling", files: [] };
  const a = translationScore(model, "crash on teardown", { doc: cause });
  const b = translationScore(model, "crash on teardown", { doc: other });
  assert.ok(a > b, `${a} vs ${b}`);
  assert.equal(translationScore(model, "unseen words only", { doc: cause }), 0);
});

Deno.test("translationScore: skipIdentity ignores a term's association with itself", () => {
  const model = trainTermTranslation([
    ...corpus(),
    ...Array.from({ length: 5 }, () => ({ title: "queue limits", summary: "queue", files: [] })),
    ...Array.from({ length: 5 }, () => ({ title: "limits", summary: "other", files: [] })),
  ]);
  const doc = { title: "", summary: "queue", files: [] };
  assert.ok(translationScore(model, "queue", { doc }) > 0);
  assert.equal(translationScore(model, "queue", { doc, skipIdentity: true }), 0);
});

Deno.test("trainTermTranslation: pairs seen once are chance, topK bounds a row", () => {
  const model = trainTermTranslation(corpus(), { minPair: 11 });
  assert.equal(model.table.size, 0);
  const small = trainTermTranslation(corpus(), { topK: 1 });
  for (const row of small.table.values()) assert.equal(row.size, 1);
});
