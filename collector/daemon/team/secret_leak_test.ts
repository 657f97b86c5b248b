// Two real collector daemons (child processes with the exact flags `serve` gives them, the team
// database reachable only through their --allow-net) share a project through PostgreSQL; the
// secret corpus planted in records and events never reaches the team database: not a column of
// any row, not a byte of its data folder. Events never go there at all.
import assert from "node:assert/strict";
import { newEventId, newRecordId } from "@kiro-learn/core/ids";
import { makeEvent } from "@kiro-learn/core/testing";
import corpus from "../../../core/privacy/testdata/secrets_corpus.json" with { type: "json" };
import {
  createTeamDatabase,
  everyFile,
  gitProjectIds,
  postJson,
  startTeamDaemon,
  startTestPostgres,
  type TestDaemon,
  type TestPostgres,
  waitFor,
} from "../../tooling/testing/mod.ts";
import { connectTeam } from "./mod.ts";

// A real project id: a checkout of a repository with a remote.
const [PROJECT] = await gitProjectIds(["git@github.com:acme/secrets-corpus.git"]);
const ns = (actor: string) => `/actor/${actor}/project/${PROJECT}/`;
const PRIVATE_MARKER = "zebraprivatequartz";
const EVENT_MARKER = "rawpromptmarkerquokka";

function teamDaemon(pg: TestPostgres, role: string): Promise<TestDaemon> {
  // 127.0.0.2: not the collector's own loopback address, so only the team grant covers it.
  return startTeamDaemon(pg, { role, password: `${role}-pw\n` }, { host: "127.0.0.2" });
}

Deno.test("sandboxed collectors share through PostgreSQL, and no secret or event reaches it", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, {
    members: [
      { role: "alice", password: "alice-pw", projects: [PROJECT] },
      { role: "bob", password: "bob-pw", projects: [PROJECT] },
    ],
  });
  await using a = await teamDaemon(pg, "alice");
  await using b = await teamDaemon(pg, "bob");
  const bobs = await postJson(b, "/v1/memories", {
    record_id: newRecordId(),
    namespace: ns("bob"),
    strategy: "mcp_observation",
    title: "bob works on this project too",
    summary: "so teammates' records are pulled into his namespace",
    source_event_ids: [newEventId()],
    created_at: new Date().toISOString(),
  });
  assert.equal(bobs.status, 200);

  for (const [i, entry] of corpus.entries()) {
    const event = makeEvent({
      event_id: newEventId(),
      namespace: ns("alice"),
      body: { type: "text", content: `${EVENT_MARKER} ${entry.text}` },
    });
    assert.equal((await postJson(a, "/v1/events", event)).status, 200);
    const saved = await postJson(a, "/v1/memories", {
      record_id: newRecordId(),
      namespace: ns("alice"),
      strategy: "mcp_observation",
      title: `leak probe ${i} <private>${PRIVATE_MARKER}</private>`,
      summary: entry.text,
      facts: [entry.text],
      source_event_ids: [event.event_id],
      created_at: new Date().toISOString(),
    });
    assert.equal(saved.status, 200, await saved.text());
  }
  const onB = await waitFor(async () => {
    const res = await b.fetch(`/v1/memories?namespace=${encodeURIComponent(ns("bob"))}&limit=1`);
    const page = await res.json();
    return page.total === corpus.length + 1 ? page.total - 1 : undefined;
  }, { what: "every record on B", timeoutMs: 60_000 });
  assert.equal(onB, corpus.length, "shared by daemons holding only their own flags");
  const stats = await (await a.fetch("/v1/stats")).json();
  assert.equal(stats.team.last_error, null);

  const sql = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  let rows: string;
  try {
    // Every column of every row, as text; then make sure the data files are written.
    rows = (await sql`SELECT t::text AS row FROM kl_records t`).map((r) => r.row).join("\n");
    await sql`CHECKPOINT`;
  } finally {
    await sql.end();
  }
  assert.ok(rows.includes("leak probe 0"), "the records are there");
  assert.ok(rows.includes("[REDACTED"), "scrubbed before they left the machine");
  const found = corpus.filter((e) => rows.includes(e.secret)).map((e) => e.kind);
  assert.deepEqual(found, [], "no secret in any column");
  assert.ok(!rows.includes(PRIVATE_MARKER), "no <private> content");
  assert.ok(!rows.includes(EVENT_MARKER), "no raw event");

  const decoder = new TextDecoder("utf-8", { fatal: false });
  const onDisk: string[] = [];
  let sawProbe = false;
  for (const file of await everyFile(pg.dataDir)) {
    const text = decoder.decode(await Deno.readFile(file));
    sawProbe ||= text.includes("leak probe 1");
    for (const entry of corpus) if (text.includes(entry.secret)) onDisk.push(entry.kind);
    if (text.includes(PRIVATE_MARKER) || text.includes(EVENT_MARKER)) onDisk.push(file);
  }
  assert.ok(sawProbe, "the search reads the files the records are in");
  assert.deepEqual(onDisk, [], "no secret, private span or event in any byte of the data folder");
});
