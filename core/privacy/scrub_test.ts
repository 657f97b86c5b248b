import assert from "node:assert/strict";
import fc from "fast-check";
import { PRIVATE_REDACTION, scrubPrivate } from "./scrub.ts";
import { callEachInWorker } from "../testing/mod.ts";

const R = PRIVATE_REDACTION;

Deno.test("scrubPrivate replaces a span, tags included", () => {
  assert.equal(scrubPrivate("a <private>secret</private> b"), `a ${R} b`);
  assert.equal(scrubPrivate("<private></private>"), R);
  assert.equal(scrubPrivate("x<private>1</private>y<private>2</private>z"), `x${R}y${R}z`);
});

Deno.test("scrubPrivate: nesting is depth-counted and the outermost pair wins", () => {
  assert.equal(
    scrubPrivate("a <private>b <private>c</private> d</private> e"),
    `a ${R} e`,
  );
  assert.equal(
    scrubPrivate("<private><private><private>x</private></private></private>!"),
    `${R}!`,
  );
});

Deno.test("scrubPrivate: an unclosed tag redacts to the end of the string", () => {
  assert.equal(scrubPrivate("keep <private>gone forever"), `keep ${R}`);
  assert.equal(scrubPrivate("keep <private>a <private>b</private> still open"), `keep ${R}`);
  assert.equal(scrubPrivate("keep <private>"), `keep ${R}`);
});

Deno.test("scrubPrivate: a stray closing tag is left as is", () => {
  assert.equal(scrubPrivate("a </private> b"), "a </private> b");
  assert.equal(
    scrubPrivate("<private>x</private> tail </private>"),
    `${R} tail </private>`,
  );
});

Deno.test("scrubPrivate: tags are case-insensitive and tolerate inner whitespace", () => {
  assert.equal(scrubPrivate("a <PRIVATE>x</Private> b"), `a ${R} b`);
  assert.equal(scrubPrivate("a < private >x</PRIVATE > b"), `a ${R} b`);
  assert.equal(scrubPrivate("a <\n\tprivate\n>x< / private> b"), `a ${R} b`);
});

Deno.test("scrubPrivate: a tag with attributes and the HTML-escaped spelling hide their span", () => {
  assert.equal(scrubPrivate('a <private reason="pii">y</private> b'), `a ${R} b`);
  assert.equal(scrubPrivate("a &lt;private&gt;hunter2&lt;/private&gt; b"), `a ${R} b`);
  assert.equal(scrubPrivate("a &LT;PRIVATE&GT;unclosed"), `a ${R}`);
});

Deno.test("scrubPrivate: self-closing and other tags are not private tags", () => {
  for (
    const text of [
      "<private/>",
      "<privateer>x</privateer>",
      "<p>private</p>",
      "< /private",
      "a < b and private > c",
    ]
  ) {
    assert.equal(scrubPrivate(text), text);
  }
});

Deno.test("scrubPrivate returns the same string when nothing is redacted", () => {
  const text = "no tags here </private>";
  assert.equal(scrubPrivate(text), text);
});

const noLt = (options: { minLength?: number } = {}) =>
  fc.string({ unit: "binary", ...options }).filter((s) => !s.includes("<"));

const OPEN_TAGS = ["<private>", "<PRIVATE>", "< private >", "<Private\n>"];
const CLOSE_TAGS = ["</private>", "</PRIVATE >", "< / private>", "</Private>"];

Deno.test("property: a closed span is replaced exactly and its body never survives", () => {
  fc.assert(
    fc.property(
      noLt(),
      noLt({ minLength: 1 }),
      noLt(),
      fc.constantFrom(...OPEN_TAGS),
      fc.constantFrom(...CLOSE_TAGS),
      (pre, body, post, open, close) => {
        const out = scrubPrivate(pre + open + body + close + post);
        assert.equal(out, pre + R + post);
        if (!pre.includes(body) && !post.includes(body) && !R.includes(body)) {
          assert.ok(!out.includes(body));
        }
      },
    ),
  );
});

Deno.test("property: text with no opening tag is returned unchanged", () => {
  // An opening tag as the scrubber reads one: attributes and HTML escapes included.
  const opener = /(?:<|&lt;)\s*private(?:\s+[^<>/&]{0,200}?)?\s*(?:>|&gt;)/i;
  const fragments = fc.constantFrom("<", ">", "/", " ", "private", "PRIVATE", "</private>", "a");
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: "binary" }),
        fc.array(fragments).map((parts) => parts.join("")),
      ),
      (text) => {
        fc.pre(!opener.test(text));
        assert.equal(scrubPrivate(text), text);
      },
    ),
  );
});

Deno.test("property: an unclosed tag redacts everything after it", () => {
  fc.assert(
    fc.property(noLt(), fc.string({ unit: "binary" }), (pre, rest) => {
      fc.pre(!/<\s*\/\s*private\s*>/i.test(rest));
      assert.equal(scrubPrivate(`${pre}<private>${rest}`), pre + R);
    }),
  );
});

// A balanced tree of nested spans, rendered with the tags between random text.
const nested: fc.Arbitrary<string> = fc.letrec((tie) => ({
  span: fc.tuple(
    fc.constantFrom(...OPEN_TAGS),
    fc.array(fc.oneof({ depthSize: "small" }, noLt(), tie("span") as fc.Arbitrary<string>), {
      maxLength: 4,
    }),
    fc.constantFrom(...CLOSE_TAGS),
  ).map(([open, inner, close]) => open + inner.join("") + close),
})).span;

Deno.test("property: nested spans collapse to one marker", () => {
  fc.assert(
    fc.property(noLt(), nested, noLt(), (pre, span, post) => {
      assert.equal(scrubPrivate(pre + span + post), pre + R + post);
    }),
  );
});

// Reference model over a token alphabet where tags only come from whole tokens.
function model(tokens: string[]): string {
  let out = "";
  let depth = 0;
  for (const token of tokens) {
    const isOpen = OPEN_TAGS.includes(token);
    const isClose = CLOSE_TAGS.includes(token);
    if (depth === 0) {
      if (isOpen) depth = 1;
      else out += token;
    } else {
      if (isOpen) depth++;
      if (isClose) depth--;
      if (depth === 0) out += R;
    }
  }
  return depth > 0 ? out + R : out;
}

Deno.test("property: scrubPrivate matches a depth-counting model and is idempotent", () => {
  const token = fc.constantFrom(...OPEN_TAGS, ...CLOSE_TAGS, "a", " ", "<", ">", "/", "\n");
  fc.assert(
    fc.property(fc.array(token, { maxLength: 40 }), (tokens) => {
      const out = scrubPrivate(tokens.join(""));
      assert.equal(out, model(tokens));
      assert.equal(scrubPrivate(out), out);
    }),
    { numRuns: 500 },
  );
});

// Guards against catastrophic backtracking. No time is asserted (speed is for benchmarks): each
// input runs in a worker with a generous hang limit, and the output must be right.
Deno.test("scrubPrivate handles 1 MiB adversarial inputs correctly, without hanging", async () => {
  const size = 1 << 20;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  const unchanged = (text: string): [string, string] => [text, text];
  const cases: [input: string, expected: string][] = [
    unchanged(fill("<")),
    unchanged(fill("< ")),
    unchanged(fill("<" + " ".repeat(4096))),
    unchanged(fill("</ ")),
    // The first tag opens a span that never closes: everything goes.
    [fill("<private>"), R],
    // Closing tags with no opener are kept.
    unchanged(fill("</private>")),
    // Each whole span becomes one marker; the cut-off last one is unclosed and redacts to the end.
    [fill("<private>a</private>"), R.repeat(Math.ceil(size / "<private>a</private>".length))],
    unchanged("<" + fill(" ")),
  ];
  const outputs = await callEachInWorker<string, string>(
    new URL("./scrub.ts", import.meta.url),
    "scrubPrivate",
    cases.map(([input]) => input),
    { describe: (text) => JSON.stringify(text.slice(0, 40)) + "…" },
  );
  for (const [index, [input, expected]] of cases.entries()) {
    const out = outputs[index];
    assert.equal(out.length, expected.length, JSON.stringify(input.slice(0, 40)));
    assert.ok(out === expected, `${JSON.stringify(input.slice(0, 40))}: wrong output`);
  }
});
