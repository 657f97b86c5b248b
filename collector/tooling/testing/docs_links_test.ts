import assert from "node:assert/strict";
import { fromFileUrl } from "@kiro-learn/core/path";
import { checkDocLinks, githubSlug, headingAnchors, markdownLinks } from "./docs_links.ts";

const REPO = fromFileUrl(new URL("../../../", import.meta.url));

Deno.test("the README's and docs/'s relative links all hold, and the README links every docs page", () => {
  assert.deepEqual(checkDocLinks(REPO), []);
});

Deno.test("the README stays short: 25 KB at most", () => {
  const size = Deno.statSync(`${REPO}/README.md`).size;
  assert.ok(size <= 25 * 1024, `README.md is ${size} bytes; move detail into docs/`);
});

Deno.test("anchors are GitHub's: lower case, markup and punctuation dropped, repeats numbered", () => {
  assert.equal(
    githubSlug("Memory on day one: `kiro-learn import git`"),
    "memory-on-day-one-kiro-learn-import-git",
  );
  assert.equal(githubSlug("Extraction agents (ACP)"), "extraction-agents-acp");
  assert.equal(
    githubSlug("Capacity: 100 developers × 50 projects"),
    "capacity-100-developers--50-projects",
  );
  assert.equal(githubSlug("See [the docs](x.md) now"), "see-the-docs-now");
  const anchors = headingAnchors("# Figures\n\n```sh\n# not a heading\n```\n## Figures\n");
  assert.deepEqual([...anchors], ["figures", "figures-1"]);
});

Deno.test("links in code blocks and code spans are not links", () => {
  const text = '[a](a.md) `[b](b.md)`\n```md\n[c](c.md)\n```\n[d](d.md#x "title")\n';
  assert.deepEqual(markdownLinks(text).map((l) => [l.target, l.line]), [["a.md", 1], [
    "d.md#x",
    5,
  ]]);
});

Deno.test("a broken file, a broken anchor and an unlinked page are each reported", () => {
  const root = Deno.makeTempDirSync();
  try {
    Deno.mkdirSync(`${root}/docs`);
    Deno.writeTextFileSync(
      `${root}/docs/a.md`,
      "# A page\n\n## Some part\n\nBack: [home](../README.md)\n",
    );
    Deno.writeTextFileSync(`${root}/docs/orphan.md`, "# Orphan\n");
    Deno.writeTextFileSync(
      `${root}/README.md`,
      "# Home\n\n[ok](docs/a.md#some-part) [web](https://example.com/x.md) [self](#home)\n",
    );
    assert.deepEqual(checkDocLinks(root), ["README.md: does not link docs/orphan.md"]);

    Deno.writeTextFileSync(
      `${root}/README.md`,
      "# Home\n\n[a](docs/a.md#no-such-part) [o](docs/orphan.md)\n[gone](docs/gone.md)\n",
    );
    assert.deepEqual(checkDocLinks(root), [
      "README.md:3: docs/a.md#no-such-part: no heading with the anchor #no-such-part",
      "README.md:4: docs/gone.md: docs/gone.md does not exist",
    ]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
