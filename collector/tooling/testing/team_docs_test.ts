// The team docs page's marked blocks, as the journey test reads them.
import assert from "node:assert/strict";
import { docCommand, teamDocBlock, teamDocBlocks, testServerUrl } from "./team_docs.ts";

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
