// The docs pages' marked blocks (team, install and projects), as the journey tests read them.
import assert from "node:assert/strict";
import {
  AGENTS_JOURNEY_MARKER,
  docCommand,
  INSTALL_DOCS_PAGE,
  markedDocBlock,
  markedDocBlocks,
  MEMORY_JOURNEY_MARKER,
  PROJECTS_DOCS_PAGE,
  TEAM_JOURNEY_MARKER,
  teamDocBlock,
  teamDocBlocks,
  testServerUrl,
} from "./team_docs.ts";

Deno.test("the team docs page marks every block the journey runs", () => {
  for (
    const [name, lang] of [
      ["admin-database", "sql"],
      ["admin-migrate", "sh"],
      ["admin-roles", "sql"],
      ["member-join", "sh"],
      ["member-status", "sh"],
      ["member-leave", "sh"],
    ]
  ) {
    assert.notEqual(teamDocBlock(name, lang).trim(), "", name);
  }
  assert.match(teamDocBlock("admin-roles", "sql"), /CREATE ROLE alice LOGIN PASSWORD '…'/);
});

Deno.test("marked blocks: read by name, a name twice is refused, unmarked blocks are not steps", () => {
  const page = [
    "<!-- team-journey: one -->",
    "",
    "```sql",
    "SELECT 1;",
    "SELECT 2;",
    "```",
    "```sh",
    "not marked",
    "```",
  ].join("\n");
  assert.deepEqual([...teamDocBlocks(page)], [["one", {
    lang: "sql",
    text: "SELECT 1;\nSELECT 2;",
  }]]);
  assert.throws(() => teamDocBlocks(page + "\n" + page), /mark "one" twice/);
});

Deno.test("docs command lines and URLs, as a test runs them", () => {
  assert.deepEqual(
    docCommand(
      `printf '%s' "$PASSWORD" | kiro-learn team join postgres://alice@db:5432/t --password-stdin`,
    ),
    {
      args: ["team", "join", "postgres://alice@db:5432/t", "--password-stdin"],
      stdinVariable: "PASSWORD",
    },
  );
  assert.deepEqual(docCommand("kiro-learn team status   # connected?"), {
    args: ["team", "status"],
    stdinVariable: null,
  });
  assert.throws(() => docCommand("sudo kiro-learn team leave"), /not a kiro-learn command line/);
  assert.equal(
    testServerUrl("postgres://alice@db.internal:5432/kiro_learn_team", {
      port: 5555,
      roles: { alice: "bob" },
    }),
    "postgres://bob@127.0.0.1:5555/kiro_learn_team",
  );
  assert.throws(() => testServerUrl("mysql://a@b/c", { port: 1 }), /not a postgres/);
});

Deno.test("the install docs page marks the block the agents' journey runs: a cd, then kiro-learn lines", () => {
  const lines = markedDocBlock(INSTALL_DOCS_PAGE, "install", {
    marker: AGENTS_JOURNEY_MARKER,
    lang: "sh",
  }).split("\n");
  assert.match(lines[0], /^cd ~\/\S+$/);
  for (const line of lines.slice(1)) assert.ok(docCommand(line).args.length > 0, line);
  assert.ok(lines.slice(1).some((line) => docCommand(line).args.join(" ") === "install"));
});

Deno.test("the projects docs page marks the memory journey's blocks: kiro-learn lines, a git clone, cds", () => {
  const blocks = markedDocBlocks(Deno.readTextFileSync(PROJECTS_DOCS_PAGE), MEMORY_JOURNEY_MARKER);
  assert.deepEqual([...blocks.keys()].sort(), [
    "export",
    "forget",
    "forget-find",
    "forget-with-sources",
    "import-git",
    "import-jsonl",
    "other-project",
  ]);
  for (const [name, { lang, text }] of blocks) {
    assert.equal(lang, "sh", name);
    for (const line of text.split("\n")) {
      if (/^(?:cd ~\/\S+|git clone \S+ ~\/\S+)$/.test(line)) continue;
      assert.ok(docCommand(line).args.length > 0, `${name}: ${line}`);
    }
  }
  assert.match(blocks.get("forget")!.text, /^kiro-learn forget <record_id>/m);
});

Deno.test("marked blocks: each page's marker reads its own blocks only", () => {
  const page =
    "<!-- team-journey: a -->\n```sh\none\n```\n<!-- agents-journey: a -->\n```sh\ntwo\n```";
  assert.equal(markedDocBlocks(page, TEAM_JOURNEY_MARKER).get("a")?.text, "one");
  assert.equal(markedDocBlocks(page, AGENTS_JOURNEY_MARKER).get("a")?.text, "two");
  assert.throws(() => markedDocBlocks(page, "a|b"), /not a block marker/);
});
