import assert from "node:assert/strict";
import { makeEvent } from "../testing/mod.ts";
import { drainSpool } from "./drain.ts";
import { REJECTED_DIR, REJECTED_MAX_BYTES, REJECTED_MAX_FILES, spoolEvent } from "./spool.ts";

async function spoolDir(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "kiro-learn-drain-" });
}

Deno.test("the writer's files come back in order, once, and are deleted after ingest", async () => {
  const dir = await spoolDir();
  const events = [1, 2, 3].map((i) => makeEvent({ body: { type: "text", content: `e${i}` } }));
  for (const event of events) {
    assert.equal(spoolEvent(event, { spoolDir: dir, maxBytes: 1 << 20 }).spooled, true);
  }
  const seen: string[] = [];
  const result = await drainSpool(dir, (e) => {
    seen.push((e as { event_id: string }).event_id);
    return Promise.resolve({ ok: true });
  });
  assert.deepEqual(seen, events.map((e) => e.event_id));
  assert.deepEqual(result, { ingested: 3, rejected: 0, remaining: 0, pruned: 0 });
  assert.deepEqual((await drainSpool(dir, () => Promise.resolve({ ok: true }))).ingested, 0);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("an invalid file goes to rejected/; a failing ingest leaves the file for later", async () => {
  const dir = await spoolDir();
  const good = makeEvent();
  spoolEvent(good, { spoolDir: dir, maxBytes: 1 << 20 });
  await Deno.writeTextFile(`${dir}/01ARZ3NDEKTSV4RRFFQ69G5FAV.json`, "{ not json");
  const failing = await drainSpool(dir, () => Promise.reject(new Error("collector busy")));
  assert.equal(failing.remaining, 1);
  assert.equal(failing.rejected, 1);
  assert.ok([...Deno.readDirSync(`${dir}/${REJECTED_DIR}`)].length === 1);
  const ok = await drainSpool(dir, () => Promise.resolve({ ok: true }));
  assert.equal(ok.ingested, 1);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("rejected/ stays bounded: the oldest files go, with a log line", async () => {
  const dir = await spoolDir();
  const rejected = `${dir}/${REJECTED_DIR}`;
  await Deno.mkdir(rejected);
  // Ten files rejected earlier, the oldest first (mtime), 1,000 bytes each.
  const earlier = Array.from({ length: 10 }, (_, i) => `old-${String(i).padStart(2, "0")}.json`);
  for (const [i, name] of earlier.entries()) {
    await Deno.writeTextFile(`${rejected}/${name}`, "x".repeat(1000));
    await Deno.utime(`${rejected}/${name}`, 1_000_000 + i, 1_000_000 + i);
  }
  // Three torn files in the spool now: rejected by this drain, newer than all of the above.
  const torn = [
    "01ARZ3NDEKTSV4RRFFQ69G5FA1",
    "01ARZ3NDEKTSV4RRFFQ69G5FA2",
    "01ARZ3NDEKTSV4RRFFQ69G5FA3",
  ];
  for (const id of torn) await Deno.writeTextFile(`${dir}/${id}.json`, "{ torn");
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  const logger = {
    warn: (m: string, f?: Record<string, unknown>) => warnings.push([m, f]),
    info() {},
  };

  const byCount = await drainSpool(dir, () => Promise.resolve({ ok: true }), {
    logger,
    rejectedMaxFiles: 5,
  });
  assert.equal(byCount.rejected, 3);
  assert.equal(byCount.pruned, 8);
  assert.deepEqual(
    [...Deno.readDirSync(rejected)].map((e) => e.name).sort(),
    [...torn.map((id) => `${id}.json`), "old-08.json", "old-09.json"],
    "the newest five are kept",
  );
  const pruneLog = warnings.find(([m]) => m.includes("rejected/ bounded"));
  assert.ok(pruneLog, "the deletion is logged");
  assert.deepEqual(
    { deleted: pruneLog[1]?.deleted, kept: pruneLog[1]?.kept },
    { deleted: 8, kept: 5 },
  );

  // And by bytes: 2,000 bytes keep the torn files (6 bytes each) and one 1,000-byte file.
  const byBytes = await drainSpool(dir, () => Promise.resolve({ ok: true }), {
    logger,
    rejectedMaxBytes: 2_000,
  });
  assert.equal(byBytes.pruned, 1, "old-08 goes; old-09 and the torn files fit");
  const left = [...Deno.readDirSync(rejected)].map((e) => e.name).sort();
  assert.deepEqual(left, [...torn.map((id) => `${id}.json`), "old-09.json"]);

  // Within bounds (the defaults), nothing is deleted.
  assert.ok(REJECTED_MAX_FILES >= 100 && REJECTED_MAX_BYTES >= 1 << 20);
  assert.equal((await drainSpool(dir, () => Promise.resolve({ ok: true }))).pruned, 0);
  await Deno.remove(dir, { recursive: true });
});
