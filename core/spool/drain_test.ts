import assert from "node:assert/strict";
import { makeEvent } from "../testing/mod.ts";
import { drainSpool } from "./drain.ts";
import { REJECTED_DIR, spoolEvent } from "./spool.ts";

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
  assert.deepEqual(result, { ingested: 3, rejected: 0, remaining: 0 });
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
