import assert from "node:assert/strict";
import fc from "fast-check";
import { OBSERVATION_TYPES, RECORD_LIMITS } from "../schemas/mod.ts";
import { escapeXml } from "./escape.ts";
import { type ParsedRecord, parseMemoryRecords, type ParseResult } from "./records.ts";
import { callEachInWorker } from "../testing/mod.ts";

/** Any code point, lone surrogates included (cheaper to build than fast-check's "binary" unit). */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));

const SEED_EXAMPLE = `<memory_record type="discovery">
  <title>Project uses ESM with explicit .js extensions</title>
  <summary>The codebase is ESM-only with verbatimModuleSyntax enabled.
  All imports use explicit .js extensions for Node.js resolution.</summary>
  <concept>ESM modules</concept>
  <concept>TypeScript configuration</concept>
  <file>tsconfig.json</file>
  <file>src/index.ts</file>
  <fact>verbatimModuleSyntax is true in tsconfig</fact>
</memory_record>`;

function records(result: ParseResult): ParsedRecord[] {
  assert.equal(result.kind, "records", `expected records, got ${result.kind}`);
  return result.kind === "records" ? result.records : [];
}

function render(record: ParsedRecord, quote = '"'): string {
  const list = (wrapper: string, name: string, values: string[]) =>
    `<${wrapper}>${values.map((v) => `<${name}>${escapeXml(v)}</${name}>`).join("")}</${wrapper}>`;
  return [
    `<memory_record type=${quote}${record.observation_type}${quote}>`,
    `<title>${escapeXml(record.title)}</title>`,
    `<summary>${escapeXml(record.summary)}</summary>`,
    list("facts", "fact", record.facts),
    list("concepts", "concept", record.concepts),
    list("files", "file", record.files_touched),
    `</memory_record>`,
  ].join("\n");
}

Deno.test("parses the seed's example record", () => {
  assert.deepEqual(records(parseMemoryRecords(SEED_EXAMPLE)), [{
    observation_type: "discovery",
    title: "Project uses ESM with explicit .js extensions",
    summary: "The codebase is ESM-only with verbatimModuleSyntax enabled.\n" +
      "  All imports use explicit .js extensions for Node.js resolution.",
    facts: ["verbatimModuleSyntax is true in tsconfig"],
    concepts: ["ESM modules", "TypeScript configuration"],
    files_touched: ["tsconfig.json", "src/index.ts"],
  }]);
});

Deno.test("an empty reply is not a skip: the batch must not be consumed for nothing", () => {
  assert.deepEqual(parseMemoryRecords(""), { kind: "garbage" });
  assert.deepEqual(parseMemoryRecords("  \n\t"), { kind: "garbage" });
});

Deno.test("skip tags are skips", () => {
  for (
    const text of [
      "<skip/>",
      "<skip />",
      `<skip reason="nothing durable"/>`,
      "Nothing here. <skip>",
    ]
  ) {
    assert.deepEqual(parseMemoryRecords(text), { kind: "skip" }, JSON.stringify(text));
  }
});

Deno.test("prose without markers is garbage", () => {
  for (
    const text of [
      "Sure! Here is a summary of what happened.",
      "<skipper/>",
      "<memory_records/>",
      "```xml\n```",
    ]
  ) {
    assert.deepEqual(parseMemoryRecords(text), { kind: "garbage" }, text);
  }
});

Deno.test("markers with no valid record are garbage, unless the model also said skip", () => {
  assert.deepEqual(
    parseMemoryRecords(
      `<memory_record type="bogus"><title>t</title><summary>s</summary></memory_record>`,
    ),
    { kind: "garbage" },
  );
  assert.deepEqual(
    parseMemoryRecords(`<memory_record type="decision"><title>t</title></memory_record>`),
    { kind: "garbage" },
  );
  assert.deepEqual(parseMemoryRecords(`<memory_record type="decision">`), { kind: "garbage" });
  assert.deepEqual(parseMemoryRecords(`<skip reason="no <memory_record> is worth it"/>`), {
    kind: "skip",
  });
});

Deno.test("tolerates code fences, prose, single quotes and odd whitespace", () => {
  const text =
    "Here you go:\n```xml\n<memory_record  type = 'Decision' >\n<title>\n Use SQLite \n</title><summary>WAL mode.</summary></memory_record >\n```\nDone.";
  const [record] = records(parseMemoryRecords(text));
  assert.equal(record.observation_type, "decision");
  assert.equal(record.title, "Use SQLite");
  assert.equal(record.summary, "WAL mode.");
});

Deno.test("drops invalid blocks and keeps valid ones, including after an unclosed block", () => {
  const text = [
    `<memory_record type="nope"><title>a</title><summary>b</summary></memory_record>`,
    `<memory_record type="error"><title>cut off`,
    `<memory_record type="error"><title>kept</title><summary>ok</summary></memory_record>`,
    `<memory_record type="pattern"><summary>no title</summary></memory_record>`,
    `<memory_record type="pattern"><title>  </title><summary>blank title</summary></memory_record>`,
    `<memory_record type="tool_use"><title>last</title><summary>unclosed`,
  ].join("\n");
  assert.deepEqual(records(parseMemoryRecords(text)).map((r) => r.title), ["kept"]);
});

Deno.test("accepts all six types, and a type given as a child element", () => {
  for (const type of OBSERVATION_TYPES) {
    const [record] = records(
      parseMemoryRecords(
        `<memory_record type="${type}"><title>t</title><summary>s</summary></memory_record>`,
      ),
    );
    assert.equal(record.observation_type, type);
  }
  const [child] = records(
    parseMemoryRecords(
      `<memory_record><observation_type>session_summary</observation_type><title>t</title><summary>s</summary></memory_record>`,
    ),
  );
  assert.equal(child.observation_type, "session_summary");
});

Deno.test("unescapes text and reads CDATA literally", () => {
  const [record] = records(parseMemoryRecords(
    `<memory_record type="pattern"><title>a &lt;b&gt; &amp; c</title><summary><![CDATA[x < y && z]]></summary><fact>&#x1F600;</fact></memory_record>`,
  ));
  assert.equal(record.title, "a <b> & c");
  assert.equal(record.summary, "x < y && z");
  assert.deepEqual(record.facts, ["😀"]);
});

Deno.test("lists: bare and wrapped, trimmed, deduplicated, empty dropped", () => {
  const [record] = records(
    parseMemoryRecords(`<memory_record type="decision"><title>t</title><summary>s</summary>
    <facts><fact> one </fact><fact>one</fact><fact></fact><fact/></facts><fact>two</fact>
    <concepts><concept>c</concept></concepts><file>a.ts</file><files><file>a.ts</file><file>b.ts</file></files>
  </memory_record>`),
  );
  assert.deepEqual(record.facts, ["one", "two"]);
  assert.deepEqual(record.concepts, ["c"]);
  assert.deepEqual(record.files_touched, ["a.ts", "b.ts"]);
});

Deno.test("truncates every field and caps every list to the record limits", () => {
  const many = (name: string, n: number, len: number) =>
    Array.from({ length: n }, (_, i) => `<${name}>${String(i).padEnd(len, "x")}</${name}>`).join(
      "",
    );
  const text =
    `<memory_record type="discovery"><title>${"t".repeat(500)}</title><summary>${
      "s".repeat(9000)
    }</summary>` +
    many("fact", 80, 900) + many("concept", 80, 300) + many("file", 300, 900) + `</memory_record>`;
  const [record] = records(parseMemoryRecords(text));
  assert.equal(record.title.length, RECORD_LIMITS.title);
  assert.equal(record.summary.length, RECORD_LIMITS.summary);
  assert.equal(record.facts.length, RECORD_LIMITS.facts);
  assert.equal(record.concepts.length, RECORD_LIMITS.concepts);
  assert.equal(record.files_touched.length, RECORD_LIMITS.files);
  assert.ok(record.facts.every((f) => f.length <= RECORD_LIMITS.fact));
  assert.ok(record.concepts.every((c) => c.length <= RECORD_LIMITS.concept));
  assert.ok(record.files_touched.every((f) => f.length <= RECORD_LIMITS.file));
});

// Guards against catastrophic backtracking. No time is asserted (speed is for benchmarks): each
// input runs in a worker with a generous hang limit, and the parse result must be right.
Deno.test("parses 1 MiB adversarial inputs correctly, without hanging", async () => {
  const MiB = 1 << 20;
  const fill = (unit: string) => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB);
  const garbage: ParseResult = { kind: "garbage" };
  const record = (facts: string[]): ParsedRecord => ({
    observation_type: "decision",
    title: "t",
    summary: "s",
    facts,
    concepts: [],
    files_touched: [],
  });
  const whole =
    `<memory_record type="decision"><title>t</title><summary>s</summary></memory_record>`;
  const cases: [input: string, expected: ParseResult][] = [
    [fill("<memory_record"), garbage],
    [fill("<memory_record "), garbage],
    [fill(`<memory_record type="`), garbage],
    [fill(`<memory_record type="decision"><title>`), garbage],
    [fill("<memory_record>") + "</memory_record>", garbage],
    [
      `<memory_record type="decision"><title>t</title><summary>s</summary>` + fill("<fact>") +
      "</memory_record>",
      { kind: "records", records: [record([])] },
    ],
    [
      `<memory_record type="decision"><title>t</title><summary>s</summary>` +
      fill("<fact>x</fact>") + "</memory_record>",
      { kind: "records", records: [record(["x"])] },
    ],
    // Every whole record parses; the one cut off at the end does not.
    [
      fill(whole),
      {
        kind: "records",
        records: Array.from({ length: Math.floor(MiB / whole.length) }, () => record([])),
      },
    ],
    [fill("</memory_record><skip"), garbage],
    [fill("<"), garbage],
    [fill("&#x1F600;&amp;"), garbage],
  ];
  const outputs = await callEachInWorker<string, ParseResult>(
    new URL("./records.ts", import.meta.url),
    "parseMemoryRecords",
    cases.map(([input]) => input),
    { describe: (text) => JSON.stringify(text.slice(0, 40)) + "…" },
  );
  for (const [index, [input, expected]] of cases.entries()) {
    assert.deepEqual(outputs[index], expected, JSON.stringify(input.slice(0, 40)));
  }
});

const fragments = fc.constantFrom(
  "<memory_record",
  '<memory_record type="decision">',
  "</memory_record>",
  "<title>",
  "</title>",
  "<summary>",
  "</summary>",
  "<fact>",
  "</fact>",
  "<facts>",
  "<file",
  "<concept/>",
  "<skip/>",
  "<skip",
  "type='",
  '"',
  "'",
  ">",
  "<",
  "/>",
  "&amp;",
  "&#",
  ";",
  "<![CDATA[",
  "]]>",
  " ",
  "\n",
  "x",
  "😀",
  "\ud800",
);

const outcomeKinds = new Set(["skip", "garbage", "records"]);

Deno.test("property: the parser never throws and returns a well-formed result", () => {
  const arbs = [
    fc.string(),
    fc.string({ unit: "binary" }),
    fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
    fc.array(fragments, { maxLength: 60 }).map((parts) => parts.join("")),
  ];
  for (const arb of arbs) {
    fc.assert(
      fc.property(arb, (text) => {
        const result = parseMemoryRecords(text);
        assert.ok(outcomeKinds.has(result.kind));
        if (result.kind === "records") {
          for (const record of result.records) {
            assert.ok(OBSERVATION_TYPES.includes(record.observation_type));
            assert.ok(record.title.length > 0 && record.title.length <= RECORD_LIMITS.title);
            assert.ok(record.summary.length > 0);
          }
        }
      }),
      { numRuns: 500 },
    );
  }
});

const fieldText = (max: number) =>
  fc.string({ unit: codePoint, minLength: 1, maxLength: max })
    .map((s) => s.trim())
    .filter((s) => s !== "");

const recordArb: fc.Arbitrary<ParsedRecord> = fc.record({
  observation_type: fc.constantFrom(...OBSERVATION_TYPES),
  title: fieldText(60),
  summary: fieldText(300),
  facts: fc.uniqueArray(fieldText(40), { maxLength: 5 }),
  concepts: fc.uniqueArray(fieldText(20), { maxLength: 5 }),
  files_touched: fc.uniqueArray(fieldText(40), { maxLength: 5 }),
}).map((record) => ({ ...record })); // fast-check may build null-prototype objects

Deno.test("property: a rendered record parses back to itself", () => {
  fc.assert(
    fc.property(
      fc.array(recordArb, { minLength: 1, maxLength: 4 }),
      fc.constantFrom('"', "'"),
      (recs, quote) => {
        const text = "Here are the records:\n" + recs.map((r) => render(r, quote)).join("\n\n") +
          "\n";
        assert.deepEqual(parseMemoryRecords(text), { kind: "records", records: recs });
      },
    ),
    { numRuns: 300 },
  );
});
