import assert from "node:assert/strict";
import fc from "fast-check";
import { RRF_K, rrfFuse } from "./fusion.ts";

const idArb = fc.constantFrom(..."abcdefghijklmnop".split(""));
const listArb = fc.uniqueArray(idArb, { maxLength: 12 });
const listsArb = fc.array(listArb, { minLength: 1, maxLength: 4 });
const createdArb = fc.dictionary(idArb, fc.constantFrom("2025-01-01", "2025-02-01", "2025-03-01"));

function created(dict: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(dict));
}

function position(ids: string[], id: string): number {
  return ids.indexOf(id);
}

Deno.test("coverage: every input id appears exactly once", () => {
  fc.assert(fc.property(listsArb, (lists) => {
    const out = rrfFuse(lists.map((ids) => ({ ids })));
    const ids = out.map((f) => f.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(new Set(ids), new Set(lists.flat()));
  }));
});

Deno.test("scores are the RRF sums and the output is sorted by the tie-break rule", () => {
  fc.assert(fc.property(listsArb, createdArb, (lists, dict) => {
    const createdAt = created(dict);
    const out = rrfFuse(lists.map((ids) => ({ ids })), { createdAt });
    for (const item of out) {
      let expected = 0;
      lists.forEach((ids, i) => {
        const r = ids.indexOf(item.id);
        assert.equal(item.ranks[i], r < 0 ? null : r + 1);
        if (r >= 0) expected += 1 / (RRF_K + r + 1);
      });
      assert.ok(Math.abs(item.score - expected) < 1e-12);
    }
    for (let i = 1; i < out.length; i++) {
      const a = out[i - 1];
      const b = out[i];
      const ca = createdAt.get(a.id) ?? "";
      const cb = createdAt.get(b.id) ?? "";
      assert.ok(
        a.score > b.score || (a.score === b.score && (ca > cb || (ca === cb && a.id < b.id))),
        `${a.id} before ${b.id}`,
      );
    }
  }));
});

Deno.test("monotonicity: moving an id up in one list never moves it down in the fusion", () => {
  fc.assert(fc.property(
    listsArb.filter((ls) => ls.some((l) => l.length >= 2)),
    fc.nat(),
    fc.nat(),
    createdArb,
    (lists, li, pi, dict) => {
      const candidates = lists.map((l, i) => ({ l, i })).filter((x) => x.l.length >= 2);
      const { i } = candidates[li % candidates.length];
      const pos = 1 + (pi % (lists[i].length - 1));
      const moved = lists[i][pos];
      const better = lists.map((l) => [...l]);
      [better[i][pos - 1], better[i][pos]] = [better[i][pos], better[i][pos - 1]];
      const opts = { createdAt: created(dict) };
      const before = rrfFuse(lists.map((ids) => ({ ids })), opts);
      const after = rrfFuse(better.map((ids) => ({ ids })), opts);
      const sBefore = before.find((f) => f.id === moved)!.score;
      const sAfter = after.find((f) => f.id === moved)!.score;
      assert.ok(sAfter > sBefore);
      assert.ok(
        position(after.map((f) => f.id), moved) <= position(before.map((f) => f.id), moved),
      );
    },
  ));
});

Deno.test("monotonicity: appearing in one more list never moves an id down", () => {
  fc.assert(fc.property(listsArb, listArb, idArb, createdArb, (lists, extra, id, dict) => {
    fc.pre(!extra.includes(id) && lists.flat().includes(id));
    const opts = { createdAt: created(dict) };
    const before = rrfFuse([...lists, extra].map((ids) => ({ ids })), opts).map((f) => f.id);
    const after = rrfFuse([...lists, [...extra, id]].map((ids) => ({ ids })), opts).map((f) =>
      f.id
    );
    assert.ok(position(after, id) <= position(before, id));
  }));
});

Deno.test("agreement: lists that agree fuse to their common order", () => {
  fc.assert(fc.property(listArb, fc.integer({ min: 1, max: 4 }), createdArb, (ids, n, dict) => {
    const out = rrfFuse(Array.from({ length: n }, () => ({ ids })), { createdAt: created(dict) });
    assert.deepEqual(out.map((f) => f.id), ids);
  }));
  fc.assert(fc.property(listsArb, idArb, (lists, top) => {
    const withTop = lists.map((l) => [top, ...l.filter((x) => x !== top)]);
    assert.equal(rrfFuse(withTop.map((ids) => ({ ids })))[0].id, top);
  }));
});

Deno.test("single-list fallbacks: one non-empty list (others empty) keeps its order", () => {
  fc.assert(fc.property(listArb, fc.nat({ max: 3 }), fc.nat({ max: 3 }), (ids, before, after) => {
    const lists = [
      ...Array.from({ length: before }, () => ({ ids: [] as string[] })),
      { ids },
      ...Array.from({ length: after }, () => ({ ids: [] as string[] })),
    ];
    assert.deepEqual(rrfFuse(lists).map((f) => f.id), ids);
  }));
  assert.deepEqual(rrfFuse([]), []);
  assert.deepEqual(rrfFuse([{ ids: [] }, { ids: [] }]), []);
});

Deno.test("a zero-weight list only breaks ties", () => {
  fc.assert(fc.property(listArb, listArb, (a, tieBreaker) => {
    const withIt = rrfFuse([{ ids: a }, { ids: tieBreaker, weight: 0 }]).filter((f) =>
      a.includes(f.id)
    );
    assert.deepEqual(withIt.map((f) => f.id), a);
  }));
});

Deno.test("determinism: same input, same output; list order does not matter", () => {
  fc.assert(fc.property(
    fc.array(fc.record({ ids: listArb, weight: fc.constantFrom(0.25, 0.5, 1) }), {
      minLength: 1,
      maxLength: 4,
    }),
    createdArb,
    fc.nat(),
    (lists, dict, seed) => {
      const opts = { createdAt: created(dict) };
      const a = rrfFuse(lists, opts);
      assert.deepEqual(rrfFuse(lists, opts), a);
      const shuffled = [...lists];
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = (seed + i * 7) % (i + 1);
        [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
      }
      const b = rrfFuse(shuffled, opts);
      assert.deepEqual(b.map((f) => [f.id, f.score]), a.map((f) => [f.id, f.score]));
    },
  ));
});

Deno.test("repeated ids keep their first rank; k must be finite and non-negative", () => {
  const out = rrfFuse([{ ids: ["a", "b", "a", "c"] }]);
  assert.deepEqual(out.map((f) => [f.id, f.ranks[0]]), [["a", 1], ["b", 2], ["c", 3]]);
  assert.throws(() => rrfFuse([], { k: -1 }), RangeError);
  assert.throws(() => rrfFuse([], { k: Number.NaN }), RangeError);
});
