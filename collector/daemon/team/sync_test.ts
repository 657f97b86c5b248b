// Team sync between real collectors (separate data dirs standing in for machines, different
// actors, the same project) through a real PostgreSQL 15 started by the test.
import assert from "node:assert/strict";
import { loadSettings } from "@kiro-learn/core/settings";
import { makeRecord } from "@kiro-learn/core/testing";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { silentLogger } from "../runtime/mod.ts";
import { type RunningCollector, startCollector } from "../mod.ts";
import {
  createTeamDatabase,
  freePort,
  startTestPostgres,
  type TestPostgres,
  waitFor,
} from "../../tooling/testing/mod.ts";
import { connectTeam } from "./mod.ts";

const PROJECT = "c".repeat(64);
const OTHER_PROJECT = "d".repeat(64);
const ns = (actor: string, project = PROJECT) => `/actor/${actor}/project/${project}/`;
const MEMBERS = [
  { role: "alice", password: "alice-pw", projects: [PROJECT, OTHER_PROJECT] },
  { role: "bob", password: "bob-pw", projects: [PROJECT] },
  { role: "carol", password: "carol-pw", projects: [PROJECT] },
];

/** A machine: a collector in this process on its own data dir, joined to the team as `role`. */
interface Machine extends RunningCollector {
  /** Its data dir. */
  dataDir: string;
  /** Stops the collector, keeping the data dir (a machine going offline). */
  stop(): Promise<void>;
  /** Stops it and removes the data dir. */
  [Symbol.asyncDispose](): Promise<void>;
}

async function machine(
  pg: TestPostgres,
  role: string,
  options: { dataDir?: string } = {},
): Promise<Machine> {
  const dataDir = options.dataDir ?? await Deno.makeTempDir({ prefix: `kiro-learn-${role}-` });
  const member = MEMBERS.find((m) => m.role === role)!;
  await Deno.writeTextFile(
    `${dataDir}/settings.json`,
    JSON.stringify({
      collector: { port: freePort() },
      embedding: { backend: "off" },
      reconciliation: { enabled: false },
      team: { url: pg.url({ user: role, password: "", db: "team" }), pollMs: 100 },
    }),
  );
  await Deno.writeTextFile(`${dataDir}/team-password`, member.password, { mode: 0o600 });
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: dataDir } });
  const collector = await startCollector(settings, { logger: silentLogger() });
  const stop = () => collector.close();
  return Object.assign(collector, {
    dataDir,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
      if (!options.dataDir) await Deno.remove(dataDir, { recursive: true });
    },
  });
}

async function api(c: RunningCollector, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${c.token}`);
  headers.set("host", new URL(c.url).host);
  if (init.body) headers.set("content-type", "application/json");
  return await c.request(`${c.url}${path}`, { ...init, headers });
}

async function save(c: RunningCollector, record: MemoryRecord): Promise<void> {
  const res = await api(c, "/v1/memories", { method: "POST", body: JSON.stringify(record) });
  assert.equal(res.status, 200, await res.text());
}

async function title(c: RunningCollector, id: string): Promise<string | null> {
  const [record] = await c.storage.getRecords([id]);
  return record?.title ?? null;
}

function arrives(c: RunningCollector, id: string, expected: string | null): Promise<true> {
  return waitFor(async () => (await title(c, id)) === expected ? true : undefined, {
    what: `${id} to read ${expected}`,
  });
}

Deno.test("save, edit, forget and merge propagate between two machines", async () => {
  await using pg = await startTestPostgres();
  await createTeamDatabase(pg, { members: MEMBERS });
  await using a = await machine(pg, "alice");
  await using b = await machine(pg, "bob");
  // B has worked on the project before: pulled records land in its own namespace.
  await save(b, makeRecord({ namespace: ns("bob"), title: "bob's own note" }));

  const shared = makeRecord({ namespace: ns("alice"), title: "payments client retries on 409" });
  await save(a, shared);
  await arrives(b, shared.record_id, "payments client retries on 409");
  const [onB] = await b.storage.getRecords([shared.record_id]);
  assert.equal(onB.namespace, ns("bob"), "retrievable in B's namespace for the project");
  const detail = await (await api(b, `/v1/memories/${shared.record_id}`)).json();
  assert.equal(detail.provenance.actor, "alice");
  assert.equal(detail.provenance.role, "alice");
  assert.equal(detail.provenance.client, a.storage.teamClientId());
  const found = await (await api(
    b,
    `/v1/memories/search?namespace=${encodeURIComponent(ns("bob"))}&query=payments+retries`,
  )).json();
  assert.ok(found.some((r: MemoryRecord) => r.record_id === shared.record_id));
  // And B's own note reached A.
  const bobs = (await b.storage.listRecords({ namespace: ns("bob"), limit: 10, offset: 0 }))
    .items.find((r) => r.title === "bob's own note")!;
  await arrives(a, bobs.record_id, "bob's own note");

  // Edit on B reaches A.
  const edit = await api(b, `/v1/memories/${shared.record_id}`, {
    method: "PATCH",
    body: JSON.stringify({ title: "payments client retries on 409, never on 500" }),
  });
  assert.equal(edit.status, 200);
  await arrives(a, shared.record_id, "payments client retries on 409, never on 500");

  // Forget on A disappears on B.
  assert.equal(
    (await api(a, `/v1/memories/${shared.record_id}`, { method: "DELETE" })).status,
    200,
  );
  await arrives(b, shared.record_id, null);

  // A merge on A (the reconciler's commit): the replaced records go, the survivor comes.
  const first = makeRecord({ namespace: ns("alice"), title: "run tests with --runInBand" });
  const second = makeRecord({ namespace: ns("alice"), title: "integration tests need runInBand" });
  await save(a, first);
  await save(a, second);
  await arrives(b, first.record_id, first.title);
  await arrives(b, second.record_id, second.title);
  const survivor = makeRecord({
    namespace: ns("alice"),
    title: "integration tests: always --runInBand",
    strategy: "llm-reconciled",
  });
  await a.storage.commitReconciliation({
    consumedSeqs: [],
    put: [{ record: survivor }],
    deleteIds: [first.record_id, second.record_id],
    merges: [{ summary_id: survivor.record_id, replaced: [first, second] }],
  });
  await arrives(b, survivor.record_id, survivor.title);
  await arrives(b, first.record_id, null);
  await arrives(b, second.record_id, null);

  // The team database holds the merge as tombstones pointing at the survivor.
  const sql = connectTeam(pg.url({ db: "team", password: "" }), { password: pg.adminPassword });
  try {
    const rows = await sql`SELECT record_id, state, superseded_by FROM kl_records
      WHERE record_id IN (${first.record_id}, ${second.record_id}, ${shared.record_id})
      ORDER BY record_id`;
    const byId = new Map(rows.map((r) => [r.record_id, r]));
    assert.equal(byId.get(first.record_id)?.state, "merged");
    assert.equal(byId.get(first.record_id)?.superseded_by, survivor.record_id);
    assert.equal(byId.get(shared.record_id)?.state, "forgotten");
  } finally {
    await sql.end();
  }
});
