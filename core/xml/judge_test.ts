import assert from "node:assert/strict";
import fc from "fast-check";
import { OBSERVATION_TYPES, RECORD_LIMITS } from "../schemas/mod.ts";
import { escapeXml } from "./escape.ts";
import {
  frameJudgeRequest,
  type JudgeCandidate,
  type JudgeMergedRecord,
  type JudgeNeighbor,
  parseJudgeResponse,
} from "./judge.ts";
import { elementText, parseAttributes, scanElements } from "./_scan.ts";

/** Any code point, lone surrogates included (cheaper to build than fast-check's "binary" unit). */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

const candidate: JudgeCandidate = {
  record_id: "mr_01ARZ3NDEKTSV4RRFFQ69G5FAV",
  title: "Use <pnpm>",
  summary: "Tom & Jerry",
  facts: ["f1"],
  concepts: [],
  files_touched: ["a.ts"],
  observation_type: "decision",
};

const neighbor: JudgeNeighbor = {
  record_id: "mr_01BX5ZZKBKACTAV9WEVGEMMVRZ",
  title: "Old",
  summary: "older summary",
  facts: [],
  similarity: 0.87,
};

Deno.test("frameJudgeRequest frames the cluster and the neighbour pool", () => {
  assert.equal(
    frameJudgeRequest({ candidates: [candidate], neighbors: [neighbor] }),
    [
      "<reconciliation_request>",
      "<candidate_cluster>",
      `<candidate record_id="mr_01ARZ3NDEKTSV4RRFFQ69G5FAV">`,
      "<title>Use &lt;pnpm&gt;</title>",
      "<summary>Tom &amp; Jerry</summary>",
      "<facts><fact>f1</fact></facts>",
      "<concepts></concepts>",
      "<files><file>a.ts</file></files>",
      "<observation_type>decision</observation_type>",
      "</candidate>",
      "</candidate_cluster>",
      "<neighbor_pool>",
      `<neighbor record_id="mr_01BX5ZZKBKACTAV9WEVGEMMVRZ" similarity="0.8700">`,
      "<title>Old</title>",
      "<summary>older summary</summary>",
      "<facts></facts>",
      "</neighbor>",
      "</neighbor_pool>",
      "</reconciliation_request>",
    ].join("\n"),
  );
});

Deno.test("frameJudgeRequest formats similarity to four decimals", () => {
  const xml = frameJudgeRequest({
    candidates: [],
    neighbors: [{ ...neighbor, similarity: 0.912345 }, { ...neighbor, similarity: NaN }],
  });
  assert.ok(xml.includes(`similarity="0.9123"`));
  assert.ok(xml.includes(`similarity="0.0000"`));
  assert.ok(xml.includes("<candidate_cluster>\n</candidate_cluster>"));
});

Deno.test("parseJudgeResponse: keep_separate in its forms, checked first", () => {
  for (
    const text of [
      "<keep_separate/>",
      "<keep_separate />",
      "<keep_separate></keep_separate>",
      `prose <keep_separate reason="x"/>`,
      "<merge><merged_record_id>a</merged_record_id></merge><keep_separate/>",
    ]
  ) {
    assert.deepEqual(parseJudgeResponse(text), { kind: "keep_separate" }, text);
  }
});

Deno.test("parseJudgeResponse: a merge", () => {
  const text =
    "```xml\n<merge>\n<merged_record_id> mr_A </merged_record_id><merged_record_id>mr_B</merged_record_id><merged_record_id>mr_A</merged_record_id>\n" +
    "<title>Merged &amp; better</title><summary>Both say the same.</summary>" +
    "<facts><fact>x</fact></facts><concepts><concept>c</concept></concepts><files><file>f.ts</file></files>" +
    "<observation_type>Pattern</observation_type></merge>\n```";
  assert.deepEqual(parseJudgeResponse(text), {
    kind: "merge",
    merged_ids: ["mr_A", "mr_B"],
    record: {
      title: "Merged & better",
      summary: "Both say the same.",
      facts: ["x"],
      concepts: ["c"],
      files_touched: ["f.ts"],
      observation_type: "pattern",
    },
  });
});

Deno.test("parseJudgeResponse: an unknown type is dropped, not fatal", () => {
  const result = parseJudgeResponse(
    "<merge><merged_record_id>a</merged_record_id><title>t</title><summary>s</summary><observation_type>wisdom</observation_type></merge>",
  );
  assert.equal(result.kind, "merge");
  assert.ok(result.kind === "merge" && !("observation_type" in result.record));
});

Deno.test("parseJudgeResponse: merges are bounded like extracted records", () => {
  const result = parseJudgeResponse(
    `<merge><merged_record_id>a</merged_record_id><title>${"t".repeat(900)}</title><summary>${
      "s".repeat(9000)
    }</summary>` +
      `${"<fact>" + "f".repeat(900) + "</fact>"}${
        Array.from({ length: 99 }, (_, i) => `<concept>${i}</concept>`).join("")
      }</merge>`,
  );
  assert.ok(result.kind === "merge");
  assert.equal(result.record.title.length, RECORD_LIMITS.title);
  assert.equal(result.record.summary.length, RECORD_LIMITS.summary);
  assert.equal(result.record.facts[0].length, RECORD_LIMITS.fact);
  assert.equal(result.record.concepts.length, RECORD_LIMITS.concepts);
});

Deno.test("parseJudgeResponse: anything else is invalid", () => {
  for (
    const text of [
      "",
      "I think they should merge.",
      "<merge><title>t</title><summary>s</summary></merge>",
      "<merge><merged_record_id>a</merged_record_id><summary>s</summary></merge>",
      "<merge><merged_record_id> </merged_record_id><title>t</title><summary>s</summary></merge>",
      "<merged_record_id>a</merged_record_id><title>t</title><summary>s</summary>",
    ]
  ) {
    assert.deepEqual(parseJudgeResponse(text), { kind: "invalid" }, text);
  }
});

Deno.test("parseJudgeResponse: a cut-off merge still parses when complete enough", () => {
  const result = parseJudgeResponse(
    "<merge><merged_record_id>a</merged_record_id><title>t</title><summary>s</summary>",
  );
  assert.equal(result.kind, "merge");
});

const fieldText = (max: number) =>
  fc.string({ unit: codePoint, minLength: 1, maxLength: max }).map((s) => s.trim()).filter((s) =>
    s !== ""
  );

Deno.test("property: parseJudgeResponse never throws", () => {
  const fragments = fc.constantFrom(
    "<merge>",
    "</merge>",
    "<merge",
    "<merged_record_id>",
    "</merged_record_id>",
    "<title>",
    "</title>",
    "<summary>",
    "</summary>",
    "<keep_separate",
    "/>",
    ">",
    "<",
    "&amp;",
    "x",
    " ",
  );
  for (
    const arb of [
      fc.string({ unit: codePoint }),
      fc.array(fragments, { maxLength: 50 }).map((p) => p.join("")),
    ]
  ) {
    fc.assert(
      fc.property(arb, (text) => {
        assert.ok(["keep_separate", "merge", "invalid"].includes(parseJudgeResponse(text).kind));
      }),
      { numRuns: 500 },
    );
  }
});

Deno.test("property: a rendered merge parses back to itself", () => {
  const arb = fc.record({
    ids: fc.uniqueArray(fieldText(30), { minLength: 1, maxLength: 5 }),
    title: fieldText(60),
    summary: fieldText(200),
    facts: fc.uniqueArray(fieldText(30), { maxLength: 4 }),
    concepts: fc.uniqueArray(fieldText(30), { maxLength: 4 }),
    files_touched: fc.uniqueArray(fieldText(30), { maxLength: 4 }),
    observation_type: fc.option(fc.constantFrom(...OBSERVATION_TYPES), { nil: undefined }),
  });
  fc.assert(
    fc.property(arb, (m) => {
      const el = (name: string, value: string) => `<${name}>${escapeXml(value)}</${name}>`;
      const text = [
        "<merge>",
        ...m.ids.map((id) => el("merged_record_id", id)),
        el("title", m.title),
        el("summary", m.summary),
        `<facts>${m.facts.map((f) => el("fact", f)).join("")}</facts>`,
        `<concepts>${m.concepts.map((c) => el("concept", c)).join("")}</concepts>`,
        `<files>${m.files_touched.map((f) => el("file", f)).join("")}</files>`,
        m.observation_type ? el("observation_type", m.observation_type) : "",
        "</merge>",
      ].join("\n");
      const record: JudgeMergedRecord = {
        title: m.title,
        summary: m.summary,
        facts: m.facts,
        concepts: m.concepts,
        files_touched: m.files_touched,
      };
      if (m.observation_type) record.observation_type = m.observation_type;
      assert.deepEqual(parseJudgeResponse(text), { kind: "merge", merged_ids: m.ids, record });
    }),
    { numRuns: 300 },
  );
});

Deno.test("property: a framed request carries every value back out intact", () => {
  const candidateArb = fc.record({
    record_id: fieldText(30),
    title: fieldText(40),
    summary: fieldText(100),
    facts: fc.array(fieldText(20), { maxLength: 3 }),
    concepts: fc.array(fieldText(20), { maxLength: 3 }),
    files_touched: fc.array(fieldText(20), { maxLength: 3 }),
    observation_type: fc.constantFrom(...OBSERVATION_TYPES),
  });
  const neighborArb = fc.record({
    record_id: fieldText(30),
    title: fieldText(40),
    summary: fieldText(100),
    facts: fc.array(fieldText(20), { maxLength: 3 }),
    similarity: fc.double({ min: 0, max: 1, noNaN: true }),
  });
  fc.assert(
    fc.property(
      fc.array(candidateArb, { maxLength: 4 }),
      fc.array(neighborArb, { maxLength: 4 }),
      (candidates, neighbors) => {
        const xml = frameJudgeRequest({ candidates, neighbors });
        const texts = (inner: string, name: string) =>
          scanElements(inner, name).map((e) => elementText(e.inner));
        const gotCandidates = scanElements(xml, "candidate").map((e) => ({
          record_id: parseAttributes(e.attrs).get("record_id"),
          title: texts(e.inner, "title")[0],
          summary: texts(e.inner, "summary")[0],
          facts: texts(e.inner, "fact"),
          concepts: texts(e.inner, "concept"),
          files_touched: texts(e.inner, "file"),
          observation_type: texts(e.inner, "observation_type")[0],
        }));
        assert.deepEqual(gotCandidates, candidates.map((c) => ({ ...c })));
        const gotNeighbors = scanElements(xml, "neighbor").map((e) => ({
          record_id: parseAttributes(e.attrs).get("record_id"),
          title: texts(e.inner, "title")[0],
          summary: texts(e.inner, "summary")[0],
          facts: texts(e.inner, "fact"),
          similarity: parseAttributes(e.attrs).get("similarity"),
        }));
        assert.deepEqual(
          gotNeighbors,
          neighbors.map((n) => ({ ...n, similarity: n.similarity.toFixed(4) })),
        );
      },
    ),
    { numRuns: 200 },
  );
});
