// PATCH /v1/memories/:id on the real daemon: an edit is scrubbed before it is stored.
import assert from "node:assert/strict";
import { makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { postJson, startTestDaemon } from "../../../tooling/testing/mod.ts";

// Assembled at run time so this file does not itself look like it leaks a token.
const GHP = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";
const PRIVATE = "hunter2-do-not-store";

Deno.test("PATCH /v1/memories/:id redacts <private> spans and tokens before storing", async () => {
  assert.equal(GHP.length, 40, "ghp_ and 36 characters");
  await using daemon = await startTestDaemon();
  const record = makeRecord({
    title: "Deploy notes",
    summary: "How the deploy works.",
    facts: ["It runs on push."],
  });
  const saved = await postJson(daemon, "/v1/memories", record);
  assert.equal(saved.status, 200, await saved.text());

  const edit = {
    title: `Deploy with <private>${PRIVATE}</private> and ${GHP}`,
    summary: `The CI token is ${GHP}; the password is <private>${PRIVATE}</private>, keep it.`,
    facts: [`token ${GHP} lives in the vault`, `<PRIVATE>${PRIVATE}</PRIVATE> stays out`, "plain"],
    concepts: [`ci ${GHP}`],
  };
  const patched = await daemon.fetch(`/v1/memories/${record.record_id}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(edit),
  });
  const patchedText = await patched.text();
  assert.equal(patched.status, 200, patchedText);
  assert.ok(!patchedText.includes(GHP) && !patchedText.includes(PRIVATE), patchedText);

  const got = await daemon.fetch(`/v1/memories/${record.record_id}`);
  assert.equal(got.status, 200);
  const stored = (await got.json()).record;
  const T = "[REDACTED:github_token]";
  assert.equal(stored.title, `Deploy with [REDACTED] and ${T}`);
  assert.equal(stored.summary, `The CI token is ${T}; the password is [REDACTED], keep it.`);
  assert.deepEqual(stored.facts, [
    `token ${T} lives in the vault`,
    "[REDACTED] stays out",
    "plain",
  ]);
  assert.deepEqual(stored.concepts, [`ci ${T}`]);

  // Not findable (the token's body is searched: a whole token in a query is redacted too), and not
  // anywhere in the database files either.
  const search = async (query: string) =>
    await (await daemon.fetch(
      `/v1/memories/search?namespace=${encodeURIComponent(TEST_NAMESPACE)}` +
        `&query=${encodeURIComponent(query)}`,
    )).json();
  assert.equal((await search("vault")).length, 1, "the edited record is indexed");
  for (const query of ["hunter2", GHP.slice(4)]) assert.deepEqual(await search(query), [], query);
  const bytes = new TextEncoder();
  for await (const entry of Deno.readDir(daemon.dataDir)) {
    if (!entry.isFile || !entry.name.startsWith("kiro-learn.db")) continue;
    const raw = await Deno.readFile(`${daemon.dataDir}/${entry.name}`);
    for (const secret of [GHP, PRIVATE]) {
      assert.ok(!contains(raw, bytes.encode(secret)), `${secret} found in ${entry.name}`);
    }
  }
});

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

Deno.test("GET /v1/memories/search?mode=candidates: the reranker's whole pool; a bad mode is a 400", async () => {
  await using daemon = await startTestDaemon();
  const records = Array.from(
    { length: 12 },
    (_, i) =>
      makeRecord({
        title: `netdev-dpdk: rework rx queue ${i}`,
        files_touched: ["lib/netdev-dpdk.c"],
      }),
  );
  for (const record of records) {
    const res = await postJson(daemon, "/v1/memories", record);
    assert.equal(res.status, 200, await res.text());
  }
  const url = (mode: string) =>
    `/v1/memories/search?namespace=${encodeURIComponent(TEST_NAMESPACE)}` +
    `&query=${encodeURIComponent("rx queue crash")}&limit=3&mode=${mode}`;
  const ranked = await (await daemon.fetch(url("ranked"))).json();
  assert.equal(ranked.length, 3);
  // Every candidate, whatever the limit: what a benchmark's candidate recall is measured on.
  const pool = await (await daemon.fetch(url("candidates"))).json() as { record_id: string }[];
  assert.deepEqual(
    pool.map((r) => r.record_id).sort(),
    records.map((r) => r.record_id).sort(),
  );
  const bad = await daemon.fetch(url("everything"));
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /candidates/);
});
