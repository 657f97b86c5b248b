import assert from "node:assert/strict";
import fc from "fast-check";
import {
  buildFtsQuery,
  escapeLike,
  MAX_QUERY_TERMS,
  planLexicalSearch,
  quoteFtsPhrase,
  selectQueryTerms,
  type TermStats,
} from "./query_rewrite.ts";
import { queryTokens } from "./code_text.ts";

Deno.test("tokens are lowercased words, deduplicated, first wins", () => {
  assert.deepEqual(queryTokens("  migrate the\tuser  table THE  User\n"), [
    "migrate",
    "the",
    "user",
    "table",
  ]);
  assert.deepEqual(queryTokens(" \n\t "), []);
});

Deno.test("the seed's example becomes an OR of quoted phrases", () => {
  const tokens = queryTokens("migrate the user table to use uuid");
  assert.equal(
    buildFtsQuery(tokens),
    '"migrate" OR "the" OR "user" OR "table" OR "to" OR "use" OR "uuid"',
  );
  assert.equal(quoteFtsPhrase('say "hi"'), '"say ""hi"""');
});

Deno.test("query shape: balanced quoted phrases joined by OR, for any input", () => {
  fc.assert(fc.property(fc.string({ maxLength: 300 }), (query) => {
    const expr = buildFtsQuery(queryTokens(query));
    if (expr === "") return;
    for (const part of expr.split(" OR ")) {
      assert.ok(part.startsWith('"') && part.endsWith('"'));
      assert.equal(part.slice(1, -1).replaceAll('""', "").includes('"'), false);
    }
  }));
});

function stats(token: string, df: number, stems = [token]): TermStats {
  return { token, stems, df };
}

Deno.test("stop words go unless nothing else is left; punctuation-only tokens go", () => {
  const terms = [stats("what", 5), stats("is", 9), stats("???", 0, []), stats("wal", 1)];
  assert.deepEqual(selectQueryTerms(terms, { totalDocs: 10 }), ["wal"]);
  assert.deepEqual(selectQueryTerms(terms.slice(0, 3), { totalDocs: 10 }), ["what", "is"]);
});

Deno.test("over the cap, the rarest terms survive in their original order", () => {
  const terms = Array.from({ length: 40 }, (_, i) => stats(`t${i}`, i + 1));
  const picked = selectQueryTerms(terms, { totalDocs: 100 });
  assert.equal(picked.length, MAX_QUERY_TERMS);
  assert.deepEqual(picked, terms.slice(0, 32).map((t) => t.token));
  fc.assert(fc.property(
    fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 33, maxLength: 80 }),
    (dfs) => {
      const ts = dfs.map((df, i) => stats(`w${i}`, df));
      const out = selectQueryTerms(ts, { totalDocs: 60 });
      assert.equal(out.length, MAX_QUERY_TERMS);
      const maxKeptDf = Math.max(...out.map((t) => Math.max(ts[+t.slice(1)].df, 1)));
      const dropped = ts.filter((t) => !out.includes(t.token));
      for (const d of dropped) assert.ok(Math.max(d.df, 1) >= maxKeptDf);
    },
  ));
});

Deno.test("LIKE escaping neutralises wildcards", () => {
  assert.equal(escapeLike("50%_off\\"), "50\\%\\_off\\\\");
});

Deno.test("the plan keeps the rarest terms within the postings budget, in query order", () => {
  const terms = [stats("common", 5000), stats("rare", 10), stats("mid", 300), stats("other", 900)];
  assert.deepEqual(planLexicalSearch(terms, { totalDocs: 10_000, maxPostings: 1000 }), {
    terms: ["rare", "mid"],
    window: 1,
  });
});

Deno.test("when even the rarest term is too common, only the newest rows are searched", () => {
  const plan = planLexicalSearch([stats("test", 8000), stats("user", 9000)], {
    totalDocs: 10_000,
    maxPostings: 2000,
  });
  assert.deepEqual(plan.terms, ["test"]);
  assert.equal(plan.window, 0.25);
  fc.assert(fc.property(
    fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 32 }),
    fc.integer({ min: 1, max: 50_000 }),
    (dfs, budget) => {
      const ts = dfs.map((df, i) => stats(`t${i}`, df));
      const p = planLexicalSearch(ts, { totalDocs: 100_000, maxPostings: budget });
      assert.ok(p.terms.length >= 1);
      const postings = p.terms.reduce((n, t) => n + ts[+t.slice(1)].df, 0);
      assert.ok(postings * p.window <= budget + 1e-6 || p.window === 0.001);
      const minDf = Math.min(...dfs);
      assert.ok(p.terms.some((t) => ts[+t.slice(1)].df === minDf), "the rarest term is kept");
    },
  ));
});
